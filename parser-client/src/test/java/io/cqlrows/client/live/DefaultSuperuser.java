package io.cqlrows.client.live;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.Credentials;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The superuser {@value #USER}/{@value #PASSWORD} that a Cassandra with {@code
 * PasswordAuthenticator} creates a few seconds after it starts listening for CQL clients, and the
 * wait until it can log in ({@link TlsCassandra}'s password server uses it). Stateless.
 */
public final class DefaultSuperuser {
  /** The default superuser Cassandra creates. */
  public static final String USER = "cassandra";

  /** Its password. */
  public static final String PASSWORD = "cassandra";

  private static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(90);
  private static final long POLL_MILLIS = 500;

  private DefaultSuperuser() {}

  /**
   * Polls a login of the default superuser to {@code process}'s server at {@code port} until it
   * succeeds or {@link #LOGIN_TIMEOUT} passes, or the process exits.
   *
   * @param customizer the pipeline customizer of each connection, e.g. one adding TLS
   */
  static void awaitLogin(CassandraProcess process, int port, Consumer<ChannelPipeline> customizer)
      throws InterruptedException {
    String host = CassandraCommand.HOST;
    EventLoopGroup group = EventLoops.nio(1);
    try {
      long deadline = System.nanoTime() + LOGIN_TIMEOUT.toNanos();
      Throwable last = null;
      while (true) {
        Credentials credentials = new Credentials(USER, PASSWORD.toCharArray());
        try {
          CqlClient client =
              CqlClient.connect(host, port, 5, Compression.NONE, credentials, group, customizer)
                  .get(30, TimeUnit.SECONDS);
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
          throw new IllegalStateException(
              "The server (pid "
                  + process.pid()
                  + ") exited with"
                  + " status "
                  + process.exitStatus()
                  + " before "
                  + USER
                  + " could log in.\n"
                  + LogTail.of(process.dir().resolve("logs").resolve("system.log"), 60));
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              USER
                  + "/"
                  + PASSWORD
                  + " could not log in to "
                  + host
                  + ":"
                  + port
                  + " in "
                  + LOGIN_TIMEOUT.toSeconds()
                  + " s; last failure: "
                  + last
                  + "\n"
                  + LogTail.of(process.dir().resolve("logs").resolve("system.log"), 60));
        }
        Thread.sleep(POLL_MILLIS);
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
