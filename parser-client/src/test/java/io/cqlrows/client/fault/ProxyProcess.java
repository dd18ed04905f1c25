package io.cqlrows.client.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link FaultProxy} in a child JVM (its {@link FaultProxy#main}, on this JVM's class path), for
 * a server process killed mid-response: arm a {@link Fault.Kind#STALL} on the first connection,
 * wait for {@link #fired()}, then {@link #kill()} it (SIGKILL): the kernel closes its sockets, with
 * a FIN, or a RST where bytes it had received were still unread.
 *
 * <p>Ownership: the caller owns the process and ends it with {@link #kill()} or {@link #close()};
 * it also ends by itself when this JVM ends (its standard input closes) and after 10 minutes. It is
 * only ever ended through its own handle. Thread-safe.
 */
public final class ProxyProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final int port;
  private final CompletableFuture<Long> fired;

  private ProxyProcess(Process process, int port, CompletableFuture<Long> fired) {
    this.process = process;
    this.port = port;
    this.fired = fired;
  }

  /**
   * Starts a proxy to {@code host}:{@code port} whose first connection gets {@code kind} after
   * {@code afterResponses} responses; returns once it listens.
   *
   * @throws IllegalStateException if it does not print its port within 30 s
   */
  public static ProxyProcess start(String host, int port, Fault.Kind kind, int afterResponses)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                FaultProxy.class.getName(),
                host,
                Integer.toString(port),
                kind.name(),
                Integer.toString(afterResponses)));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    CompletableFuture<Integer> listening = new CompletableFuture<>();
    CompletableFuture<Long> fired = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  if (line.startsWith("PORT ")) {
                    listening.complete(Integer.parseInt(line.substring(5).strip()));
                  } else if (line.startsWith("FIRED ")) {
                    fired.complete(Long.parseLong(line.substring(6).strip()));
                  }
                }
              } catch (IOException | RuntimeException e) {
                listening.completeExceptionally(e);
              }
              listening.completeExceptionally(new IllegalStateException("the proxy process ended"));
              fired.completeExceptionally(new IllegalStateException("the proxy process ended"));
            },
            "proxy-process-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    try {
      return new ProxyProcess(
          process, listening.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS), fired);
    } catch (ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      throw new IllegalStateException("The proxy process did not start: " + e, e);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /** {@code 127.0.0.1}. */
  public String host() {
    return "127.0.0.1";
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  /** Completes with the response index when the fault fired; fails if the process ended. */
  public CompletableFuture<Long> fired() {
    return fired;
  }

  /** Kills the process (SIGKILL) and waits up to 10 s for it to end; true if it ended. */
  public boolean kill() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor(10, TimeUnit.SECONDS);
  }

  /** Kills the process if it still runs. Keeps an interrupt in the thread's status. */
  @Override
  public void close() {
    try {
      kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
