package io.cqlrows.client.live;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server running in a child process, with its stdout and stderr in files of its data folder and
 * its log in {@code logs/system.log} there.
 *
 * <p>Ownership: whoever calls {@link #start} owns the process and must end it with {@link #stop()}
 * ({@link CassandraServer} does, from the JUnit session listener or a shutdown hook). It is only
 * ever ended through its own {@link Process} handle (SIGTERM, then SIGKILL), never by name. Files
 * are left in place.
 *
 * <p>Threading: {@link #awaitReady} runs on the starting thread; {@link #stop()} may be called from
 * any thread, more than once, also while another thread waits in {@link #awaitReady} (which then
 * fails because the process has exited).
 */
final class CassandraProcess {

  static final String READY_LINE = "Starting listening for CQL clients";
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int LOG_LINES = 60;

  private final Process process;
  private final Path dir;
  private final String host;
  private final int port;

  private CassandraProcess(Process process, Path dir, String host, int port) {
    this.process = process;
    this.dir = dir;
    this.host = host;
    this.port = port;
  }

  /**
   * Starts {@code command} in {@code dir}, which must exist; returns at once.
   *
   * @param host where the server will accept connections once ready
   * @param port its native-protocol port
   */
  static CassandraProcess start(List<String> command, Path dir, String host, int port)
      throws IOException {
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .redirectError(dir.resolve("stderr.log").toFile())
            .start();
    process.getOutputStream().close();
    return new CassandraProcess(process, dir, host, port);
  }

  long pid() {
    return process.pid();
  }

  Path dir() {
    return dir;
  }

  /**
   * Waits until {@code logs/system.log} contains {@link #READY_LINE} and the port accepts a TCP
   * connection. If the process exits first or {@code timeout} passes, kills it and throws {@link
   * NotReady}, which holds the tails of the log and of stdout/stderr.
   */
  void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean logged = false;
    try {
      while (true) {
        if (!process.isAlive()) {
          throw failure(true, "exited with status " + process.exitValue() + " before it was ready");
        }
        logged = logged || logContains(READY_LINE);
        if (logged && acceptsConnections()) {
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          throw failure(
              false,
              "was not ready after "
                  + timeout.toSeconds()
                  + " s (log line "
                  + (logged ? "seen" : "not seen")
                  + ", port "
                  + port
                  + " "
                  + (logged ? "closed" : "not tried")
                  + "); killed it");
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      kill();
      throw e;
    }
  }

  /**
   * Asks the process to stop (SIGTERM), waits up to 30 s, then kills it (SIGKILL). Returns how long
   * that took; zero if it had already exited.
   */
  Duration stop() {
    long start = System.nanoTime();
    if (!process.isAlive()) {
      return Duration.ZERO;
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      kill();
      Thread.currentThread().interrupt();
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** The exit status, or -1 while running. */
  int exitStatus() {
    return process.isAlive() ? -1 : process.exitValue();
  }

  private void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private NotReady failure(boolean exited, String what) {
    kill();
    String logs =
        LogTail.of(dir.resolve("logs").resolve("system.log"), LOG_LINES)
            + LogTail.of(dir.resolve("stdout.log"), 20)
            + LogTail.of(dir.resolve("stderr.log"), 20);
    return new NotReady(
        exited,
        "The server (pid " + process.pid() + ", data in " + dir + ") " + what + ".\n",
        logs);
  }

  /** The server did not become ready: it exited, or the wait timed out and it was killed. */
  static final class NotReady extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final boolean exited;
    private final String logs;

    NotReady(boolean exited, String what, String logs) {
      super(what + logs);
      this.exited = exited;
      this.logs = logs;
    }

    /** True if the process exited by itself; false if it timed out and was killed. */
    boolean exited() {
      return exited;
    }

    /** The tails of {@code logs/system.log}, {@code stdout.log} and {@code stderr.log}. */
    String logs() {
      return logs;
    }
  }

  private boolean logContains(String line) {
    Path log = dir.resolve("logs").resolve("system.log");
    try {
      // The log of a starting server is small (about 100 KiB); ASCII match, any encoding.
      return Files.isRegularFile(log)
          && new String(Files.readAllBytes(log), StandardCharsets.ISO_8859_1).contains(line);
    } catch (IOException e) {
      return false;
    }
  }

  private boolean acceptsConnections() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
