package io.cqlrows.client.live;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Cassandra server of the live tests (tagged {@code live}): one per test JVM, started on the
 * first {@link #get()} and stopped when the JUnit Platform launcher session ends ({@link
 * CassandraSessionListener}), or else by a JVM shutdown hook, whether tests passed or not.
 *
 * <p>A local server is Apache Cassandra 5.0.6 in a child JVM (see {@link CassandraCommand}), with
 * free ports on 127.0.0.1 and its data and logs in {@code target/cassandra-<timestamp>/}, which are
 * left there. If the system property {@value #HOST_PROPERTY} is set (optionally with {@value
 * #PORT_PROPERTY}, default 9042), nothing is started and that server is used.
 *
 * <p>Ownership: this class alone owns the child process. Tests borrow {@link #host()} and {@link
 * #port()}; they must not stop the server, and should leave it as they found it (use keyspaces of
 * their own).
 *
 * <p>Threading: {@link #get()} is synchronized, so test classes running in parallel wait for a
 * single start. {@link #stop()} does not take that lock and may run on any thread, so the shutdown
 * hook can kill a server that is still starting. A failed start is remembered: later {@link #get()}
 * calls fail at once with the same log tail instead of starting again.
 */
public final class CassandraServer {

  /** Host of an external server; when set, no server is started. */
  public static final String HOST_PROPERTY = "cqlrows.cassandra.host";

  /** Native-protocol port of the external server; 9042 if unset. */
  public static final String PORT_PROPERTY = "cqlrows.cassandra.port";

  /**
   * The standalone pom that names the server's jars, for a module other than parser-netty (whose
   * {@code src/test/cassandra/pom.xml} is the default).
   */
  public static final String POM_PROPERTY = "cqlrows.cassandra.pom";

  static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
  private static final AtomicReference<CassandraProcess> RUNNING = new AtomicReference<>();

  private static volatile CassandraServer instance;
  private static volatile RuntimeException failure;
  private static boolean hookAdded; // guarded by CassandraServer.class

  private final String host;
  private final int port;

  private CassandraServer(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /**
   * Returns the server, starting it on first use (which takes 10 to 20 s, plus the resolution of
   * its classpath on the very first run).
   *
   * @throws IllegalStateException if it cannot be started; the message holds the end of its log
   */
  @SuppressWarnings("StaticAssignmentOfThrowable") // a failed start is remembered (class doc)
  public static synchronized CassandraServer get() {
    CassandraServer server = instance;
    if (server != null) {
      return server;
    }
    if (failure != null) {
      throw new IllegalStateException(
          "Cassandra failed to start earlier in this test run: " + failure.getMessage(), failure);
    }
    try {
      server = open();
    } catch (IOException e) {
      failure = new UncheckedIOException("Cannot start Cassandra: " + e.getMessage(), e);
      throw failure;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while starting Cassandra", e);
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    }
    instance = server;
    return server;
  }

  /**
   * Stops the local server if one was started (SIGTERM, SIGKILL after 30 s) and forgets it, so a
   * later {@link #get()} would start another. Does nothing for an external server. Idempotent.
   */
  @SuppressWarnings("StaticAssignmentOfThrowable") // forgets a failed start
  public static void stop() {
    instance = null;
    failure = null;
    CassandraProcess process = RUNNING.getAndSet(null);
    if (process != null) {
      Duration took = process.stop();
      System.err.printf(
          "[cqlrows] Cassandra (pid %d) stopped in %d ms by %s, exit status %d;" + " logs in %s%n",
          process.pid(),
          took.toMillis(),
          Thread.currentThread().getName(),
          process.exitStatus(),
          process.dir());
    }
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return "Cassandra at " + host + ":" + port;
  }

  /** The local time now, {@code yyyyMMdd-HHmmss-SSS}: the suffix of a new directory's name. */
  static String stamp() {
    return LocalDateTime.now(ZoneId.systemDefault()).format(STAMP);
  }

  private static CassandraServer open() throws IOException, InterruptedException {
    String externalHost = System.getProperty(HOST_PROPERTY, "").strip();
    if (!externalHost.isEmpty()) {
      String port = System.getProperty(PORT_PROPERTY, "").strip();
      return new CassandraServer(externalHost, port.isEmpty() ? 9042 : Integer.parseInt(port));
    }
    long start = System.nanoTime();
    Path buildDir = buildDir();
    List<Path> classpath = classpath();
    long resolved = System.nanoTime();

    Path dir = buildDir.resolve("cassandra-" + stamp());
    CassandraCommand.Ports ports = CassandraCommand.Ports.free();
    List<String> command = CassandraCommand.prepare(dir, ports, classpath);
    addShutdownHook();
    CassandraProcess process =
        CassandraProcess.start(command, dir, CassandraCommand.HOST, ports.nativePort());
    RUNNING.set(process);
    try {
      process.awaitReady(START_TIMEOUT);
    } finally {
      if (process.exitStatus() != -1) {
        RUNNING.compareAndSet(process, null);
      }
    }
    long ready = System.nanoTime();
    System.err.printf(
        "[cqlrows] Cassandra 5.0.6 (pid %d) ready at %s:%d in %d ms (classpath %d"
            + " ms, server %d ms); data in %s%n",
        process.pid(),
        CassandraCommand.HOST,
        ports.nativePort(),
        (ready - start) / 1_000_000,
        (resolved - start) / 1_000_000,
        (ready - resolved) / 1_000_000,
        dir);
    return new CassandraServer(CassandraCommand.HOST, ports.nativePort());
  }

  /**
   * The jars of a local server ({@link CassandraClasspath}), resolved with the pom of {@value
   * #POM_PROPERTY}, else with this module's {@code src/test/cassandra/pom.xml}. Synchronized, so
   * that no two resolutions run at once.
   */
  static synchronized List<Path> classpath() throws IOException, InterruptedException {
    Path buildDir = buildDir();
    String property = System.getProperty(POM_PROPERTY, "").strip();
    Path pom =
        property.isEmpty()
            ? buildDir.getParent().resolve("src/test/cassandra/pom.xml")
            : Path.of(property).toAbsolutePath();
    if (!Files.isRegularFile(pom)) {
      throw new IllegalStateException(
          "No "
              + pom
              + " to resolve Cassandra with (set "
              + POM_PROPERTY
              + " to parser-client/src/test/cassandra/pom.xml)");
    }
    // the resolution is cached in the target folder of the module whose pom it is, so that a
    // later module of the same build (parser-cli) reuses parser-netty's instead of resolving again
    Path owner =
        pom.getParent().endsWith(Path.of("src", "test", "cassandra"))
            ? pom.getParent().getParent().getParent().getParent().resolve("target")
            : buildDir;
    return CassandraClasspath.resolve(pom, owner);
  }

  private static synchronized void addShutdownHook() {
    if (!hookAdded) {
      Runtime.getRuntime().addShutdownHook(new Thread(CassandraServer::stop, "cassandra-stop"));
      hookAdded = true;
    }
  }

  /** The module's {@code target} folder: the parent of the folder this class was loaded from. */
  static Path buildDir() {
    try {
      Path classes =
          Path.of(
              CassandraServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isDirectory(classes) && classes.getFileName().toString().equals("test-classes")) {
        return classes.getParent();
      }
    } catch (URISyntaxException | RuntimeException e) {
      // fall through to the working directory, which Surefire sets to the module
    }
    return Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "target")
        .toAbsolutePath();
  }
}
