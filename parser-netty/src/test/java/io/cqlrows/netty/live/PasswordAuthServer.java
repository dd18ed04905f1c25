package io.cqlrows.netty.live;

import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.client.CqlClient;
import io.cqlrows.netty.client.Credentials;
import io.cqlrows.netty.compression.Compression;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A second local Cassandra 5.0.6 for the live tests of authentication, configured with {@code
 * authenticator: PasswordAuthenticator} ({@link CassandraCommand#PASSWORD}); otherwise as {@link
 * CassandraServer}'s (free ports on 127.0.0.1, data and logs in {@code
 * target/cassandra-auth-<timestamp>/}, left there).
 *
 * <p>Cassandra creates the default superuser {@value #USER}/{@value #PASSWORD} a few seconds
 * after it starts listening for CQL clients: {@link #start()} returns once that login succeeds
 * (a {@link CqlClient} with {@link Credentials}, polled every 500 ms for at most 90 s).
 *
 * <p>Ownership: the test class that calls {@link #start()} owns the server and stops it with
 * {@link #close()}; a JVM shutdown hook stops it if the class does not. It is only ever ended
 * through its own process handle. Thread-safe: {@link #close()} may be called from any thread,
 * more than once.
 */
public final class PasswordAuthServer implements AutoCloseable {
  /** The default superuser Cassandra creates. */
  public static final String USER = "cassandra";
  /** Its password. */
  public static final String PASSWORD = "cassandra";

  private static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(90);
  private static final long POLL_MILLIS = 500;

  private final CassandraProcess process;
  private final int port;
  private final Thread hook;

  private PasswordAuthServer(CassandraProcess process, int port, Thread hook) {
    this.process = process;
    this.port = port;
    this.hook = hook;
  }

  /**
   * Starts the server and waits until {@value #USER}/{@value #PASSWORD} can log in.
   *
   * @throws IllegalStateException if it does not start or the login does not succeed in time;
   *     the message holds the end of its log. The process is stopped then.
   */
  public static PasswordAuthServer start() {
    try {
      return open();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start Cassandra with PasswordAuthenticator: "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while starting Cassandra", e);
    }
  }

  private static PasswordAuthServer open() throws IOException, InterruptedException {
    long start = System.nanoTime();
    List<Path> classpath = CassandraServer.classpath();
    Path dir = CassandraServer.buildDir()
        .resolve("cassandra-auth-" + LocalDateTime.now().format(CassandraServer.STAMP));
    CassandraCommand.Ports ports = CassandraCommand.Ports.free();
    List<String> command =
        CassandraCommand.prepare(dir, ports, classpath, CassandraCommand.PASSWORD);
    CassandraProcess process =
        CassandraProcess.start(command, dir, CassandraCommand.HOST, ports.nativePort());
    Thread hook = new Thread(process::stop, "cassandra-auth-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    PasswordAuthServer server = new PasswordAuthServer(process, ports.nativePort(), hook);
    boolean ready = false;
    try {
      process.awaitReady(CassandraServer.START_TIMEOUT);
      long listening = System.nanoTime();
      awaitLogin(process, server.port, p -> {});
      ready = true;
      System.err.printf("[cqlrows] Cassandra 5.0.6 with PasswordAuthenticator (pid %d) at %s:%d:"
          + " listening after %d ms, %s/%s logged in %d ms later; data in %s%n", process.pid(),
          CassandraCommand.HOST, server.port, (listening - start) / 1_000_000, USER, PASSWORD,
          (System.nanoTime() - listening) / 1_000_000, dir);
      return server;
    } finally {
      if (!ready) {
        server.close();
      }
    }
  }

  /**
   * Polls a login of the default superuser to {@code process}'s server at {@code port} until it
   * succeeds or {@link #LOGIN_TIMEOUT} passes, or the process exits.
   *
   * @param customizer the pipeline customizer of each connection, e.g. one adding TLS
   */
  static void awaitLogin(CassandraProcess process, int port,
      Consumer<ChannelPipeline> customizer) throws InterruptedException {
    String host = CassandraCommand.HOST;
    EventLoopGroup group = EventLoops.nio(1);
    try {
      long deadline = System.nanoTime() + LOGIN_TIMEOUT.toNanos();
      Throwable last = null;
      while (true) {
        Credentials credentials = new Credentials(USER, PASSWORD.toCharArray());
        try {
          CqlClient client = CqlClient.connect(host, port, 5, Compression.NONE, credentials,
              group, customizer).get(30, TimeUnit.SECONDS);
          client.close().get(10, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException e) {
          last = e.getCause();
        } catch (TimeoutException e) {
          last = e;
        } finally {
          credentials.clear();
        }
        if (process.exitStatus() != -1) {
          throw new IllegalStateException("The server (pid " + process.pid() + ") exited with"
              + " status " + process.exitStatus() + " before " + USER + " could log in.\n"
              + LogTail.of(process.dir().resolve("logs").resolve("system.log"), 60));
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(USER + "/" + PASSWORD + " could not log in to "
              + host + ":" + port + " in " + LOGIN_TIMEOUT.toSeconds() + " s; last failure: "
              + last + "\n" + LogTail.of(process.dir().resolve("logs").resolve("system.log"), 60));
        }
        Thread.sleep(POLL_MILLIS);
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  public String host() {
    return CassandraCommand.HOST;
  }

  public int port() {
    return port;
  }

  /** Stops the server (SIGTERM, SIGKILL after 30 s) and removes the shutdown hook. Idempotent. */
  @Override
  public void close() {
    Duration took = process.stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook stops the process, which is stopped already
    }
    if (!took.isZero()) {
      System.err.printf("[cqlrows] Cassandra with PasswordAuthenticator (pid %d) stopped in %d"
          + " ms, exit status %d; logs in %s%n", process.pid(), took.toMillis(),
          process.exitStatus(), process.dir());
    }
  }

  @Override
  public String toString() {
    return "Cassandra with PasswordAuthenticator at " + host() + ":" + port;
  }
}
