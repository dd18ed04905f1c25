package io.cqlrows.client.live;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.tls.TlsClients;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * The live tests' Cassandra 5.0.6 servers with TLS on the native port ({@code
 * client_encryption_options}, certificates from {@link TestCertificates}), one per {@link Kind} and
 * per JVM: started on first use by any test class, shared by all of them, and stopped with {@link
 * CassandraServer}'s when the JUnit Platform launcher session ends ({@link
 * CassandraSessionListener}) or else by a JVM shutdown hook. Free ports on 127.0.0.1; data and logs
 * in {@code target/cassandra-<kind>-<timestamp>/}, left there.
 *
 * <p>Both kinds require TLS ({@code enabled: true, optional: false}): a plaintext connection to
 * their port is not served. The server presents {@link TestCertificates#serverKeystore()}
 * (subjectAltName 127.0.0.1, localhost, {@value TestCertificates#SERVER_DNS}), so clients trust
 * {@link TestCertificates#caPem()}.
 *
 * <ul>
 *   <li>{@link Kind#PASSWORD}: {@code PasswordAuthenticator}, superuser {@value
 *       DefaultSuperuser#USER}/{@value DefaultSuperuser#PASSWORD}; no client certificate asked for.
 *       Ready once that user logs in over TLS (a {@link CqlClient}, v5).
 *   <li>{@link Kind#MUTUAL}: {@code require_client_auth: true} with the CA of {@link
 *       TestCertificates#truststore()}, so a client must present {@link TestCertificates#client()};
 *       {@code AllowAllAuthenticator}. Ready once a client with that certificate gets READY.
 * </ul>
 *
 * A start takes 10 to 20 s and 1.2 GiB; {@link #both()} starts the two side by side (together about
 * 20 s on an idle two-core machine, 40 s on a busy one). They are always local servers, also when
 * {@value CassandraServer#HOST_PROPERTY} names an external one for the other tests. Cassandra's
 * side of TLS is OpenSSL (netty-tcnative BoringSSL, on its classpath), with TLSv1.3 and TLSv1.2
 * enabled.
 *
 * <p>Ownership: this class alone owns the child processes; tests borrow {@link #host()} and {@link
 * #port()} and must leave the servers as they found them. Thread-safe: each kind starts once, on a
 * thread of its own, and every caller waits for that start; a failed start is remembered and
 * rethrown to later callers. {@link #stopAll()} may run on any thread, also during a start (which
 * then fails).
 */
public final class TlsCassandra {

  /** The two configurations. */
  public enum Kind {
    /** TLS required, PasswordAuthenticator, no client certificate. */
    PASSWORD("tls-password"),
    /** TLS required with a client certificate signed by the test CA, AllowAllAuthenticator. */
    MUTUAL("tls-mutual");

    private final String folder;

    Kind(String folder) {
      this.folder = folder;
    }
  }

  private static final Map<Kind, CompletableFuture<TlsCassandra>> STARTS =
      new EnumMap<>(Kind.class); // guarded by STARTS
  private static final Map<Kind, CassandraProcess> RUNNING =
      new EnumMap<>(Kind.class); // guarded by RUNNING
  private static boolean hookAdded; // guarded by STARTS

  private final Kind kind;
  private final int port;
  private final Path dir;

  private TlsCassandra(Kind kind, int port, Path dir) {
    this.kind = kind;
    this.port = port;
    this.dir = dir;
  }

  /** The TLS + PasswordAuthenticator server, started on first use. */
  public static TlsCassandra password() {
    return get(Kind.PASSWORD);
  }

  /** The mutual-TLS server, started on first use. */
  public static TlsCassandra mutual() {
    return get(Kind.MUTUAL);
  }

  /** Both servers, in {@link Kind} order; those not running yet start side by side. */
  public static List<TlsCassandra> both() {
    CompletableFuture<TlsCassandra> password = start(Kind.PASSWORD);
    CompletableFuture<TlsCassandra> mutual = start(Kind.MUTUAL);
    return List.of(await(Kind.PASSWORD, password), await(Kind.MUTUAL, mutual));
  }

  /** Starts both servers side by side, if they are not started yet, without waiting for them. */
  public static void startInBackground() {
    start(Kind.PASSWORD);
    start(Kind.MUTUAL);
  }

  /**
   * The server of {@code kind}, started on first use (10 to 20 s).
   *
   * @throws IllegalStateException if it could not start (now or earlier in this JVM); the message
   *     holds the end of its log
   */
  public static TlsCassandra get(Kind kind) {
    return await(kind, start(kind));
  }

  /**
   * Stops every server started here (SIGTERM, SIGKILL after 30 s), side by side, and forgets them,
   * so a later call would start them again. Idempotent.
   */
  public static void stopAll() {
    synchronized (STARTS) {
      STARTS.clear();
    }
    List<Map.Entry<Kind, CassandraProcess>> running;
    synchronized (RUNNING) {
      running = List.copyOf(RUNNING.entrySet());
      RUNNING.clear();
    }
    List<Thread> stoppers =
        running.stream()
            .map(
                e ->
                    new Thread(
                        () -> {
                          CassandraProcess process = e.getValue();
                          Duration took = process.stop();
                          System.err.printf(
                              "[cqlrows] Cassandra %s (pid %d) stopped in %d ms, exit status %d;"
                                  + " logs in %s%n",
                              e.getKey(),
                              process.pid(),
                              took.toMillis(),
                              process.exitStatus(),
                              process.dir());
                        },
                        "cassandra-" + e.getKey().folder + "-stop"))
            .toList();
    stoppers.forEach(Thread::start);
    for (Thread stopper : stoppers) {
      try {
        stopper.join(60_000);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  public Kind kind() {
    return kind;
  }

  /** {@code 127.0.0.1}. */
  public String host() {
    return CassandraCommand.HOST;
  }

  /** The native-protocol port, TLS only. */
  public int port() {
    return port;
  }

  /** The server's data folder; its log is {@code logs/system.log} there. */
  public Path dir() {
    return dir;
  }

  /**
   * A JDK-provider client context for this server: trusting the test CA and, for {@link
   * Kind#MUTUAL}, presenting the test client certificate.
   */
  public SslContext clientContext(String... protocols) throws SSLException {
    TestCertificates certs = TestCertificates.get();
    return kind == Kind.MUTUAL
        ? TlsClients.context(
            certs.caPem(),
            certs.client().certificateChain(),
            certs.client().privateKey(),
            protocols)
        : TlsClients.context(certs.caPem(), null, null, protocols);
  }

  @Override
  public String toString() {
    return "Cassandra " + kind + " at " + host() + ":" + port;
  }

  private static CompletableFuture<TlsCassandra> start(Kind kind) {
    synchronized (STARTS) {
      CompletableFuture<TlsCassandra> start = STARTS.get(kind);
      if (start == null) {
        if (!hookAdded) {
          Runtime.getRuntime()
              .addShutdownHook(new Thread(TlsCassandra::stopAll, "cassandra-tls-stop"));
          hookAdded = true;
        }
        CompletableFuture<TlsCassandra> future = new CompletableFuture<>();
        start = future;
        STARTS.put(kind, start);
        Thread starter =
            new Thread(
                () -> {
                  try {
                    future.complete(open(kind));
                  } catch (Throwable e) {
                    future.completeExceptionally(e);
                  }
                },
                "cassandra-" + kind.folder + "-start");
        starter.setDaemon(true);
        starter.start();
      }
      return start;
    }
  }

  private static TlsCassandra await(Kind kind, CompletableFuture<TlsCassandra> start) {
    try {
      return start.get(CassandraServer.START_TIMEOUT.toSeconds() + 120, TimeUnit.SECONDS);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException(
          "Cassandra " + kind + " failed to start in this test run: " + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Cassandra " + kind + " did not start in time", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while starting Cassandra " + kind, e);
    }
  }

  private static TlsCassandra open(Kind kind) throws IOException, InterruptedException {
    long start = System.nanoTime();
    TestCertificates certs = TestCertificates.get();
    List<Path> classpath = CassandraServer.classpath();
    long prepared = System.nanoTime();
    Path dir =
        CassandraServer.buildDir()
            .resolve("cassandra-" + kind.folder + "-" + CassandraServer.stamp());
    CassandraCommand.Ports ports = CassandraCommand.Ports.free();
    List<String> command =
        CassandraCommand.prepare(
            dir,
            ports,
            classpath,
            kind == Kind.PASSWORD ? CassandraCommand.PASSWORD : CassandraCommand.ALLOW_ALL,
            encryptionYaml(kind, certs));
    CassandraProcess process =
        CassandraProcess.start(command, dir, CassandraCommand.HOST, ports.nativePort());
    synchronized (RUNNING) {
      RUNNING.put(kind, process);
    }
    TlsCassandra server = new TlsCassandra(kind, ports.nativePort(), dir);
    boolean ready = false;
    try {
      process.awaitReady(CassandraServer.START_TIMEOUT);
      long listening = System.nanoTime();
      SslContext context = server.clientContext();
      if (kind == Kind.PASSWORD) {
        DefaultSuperuser.awaitLogin(
            process, server.port, TlsClients.first(context, server.host(), server.port));
      } else {
        awaitReady(server, context);
      }
      ready = true;
      System.err.printf(
          "[cqlrows] Cassandra 5.0.6 %s (pid %d) ready at %s:%d in %d ms"
              + " (certificates and classpath %d ms, listening after %d ms, first TLS session %d"
              + " ms later); data in %s%n",
          kind,
          process.pid(),
          server.host(),
          server.port,
          (System.nanoTime() - start) / 1_000_000,
          (prepared - start) / 1_000_000,
          (listening - prepared) / 1_000_000,
          (System.nanoTime() - listening) / 1_000_000,
          dir);
      return server;
    } finally {
      if (!ready) {
        process.stop();
        synchronized (RUNNING) {
          RUNNING.remove(kind, process);
        }
      }
    }
  }

  /** A {@link CqlClient} with the client certificate gets READY; one try, 30 s at most. */
  private static void awaitReady(TlsCassandra server, SslContext context)
      throws InterruptedException {
    EventLoopGroup group = EventLoops.nio(1);
    try {
      CqlClient client =
          CqlClient.connect(
                  server.host(),
                  server.port,
                  5,
                  Compression.NONE,
                  group,
                  TlsClients.first(context, server.host(), server.port))
              .get(30, TimeUnit.SECONDS);
      client.close().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "A client with the test certificate got no READY from "
              + server
              + ": "
              + e
              + "\n"
              + LogTail.of(server.dir.resolve("logs/system.log"), 60),
          e);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  /** The {@code client_encryption_options} of {@code kind}, PKCS12 stores of {@code certs}. */
  static String encryptionYaml(Kind kind, TestCertificates certs) {
    return "client_encryption_options:\n"
        + "  enabled: true\n"
        + "  optional: false\n"
        + "  keystore: "
        + certs.serverKeystore()
        + "\n"
        + "  keystore_password: "
        + TestCertificates.PASSWORD
        + "\n"
        + "  truststore: "
        + certs.truststore()
        + "\n"
        + "  truststore_password: "
        + TestCertificates.PASSWORD
        + "\n"
        + "  store_type: PKCS12\n"
        + "  require_client_auth: "
        + (kind == Kind.MUTUAL)
        + "\n";
  }
}
