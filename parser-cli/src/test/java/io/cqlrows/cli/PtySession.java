package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A session of the command jar on a pseudo-terminal, driven by {@code pty_session.py} (Python's
 * {@code pty} module): keys are sent as typed, and each expectation waits, bounded, for the
 * terminal to show a pattern. Build the steps, then {@link #run}.
 */
final class PtySession {
  /**
   * Ctrl-C, Ctrl-D and the Up arrow as an xterm sends them to a line editor, which turns on the
   * keypad's application mode ({@code ESC O A}, not {@code ESC [ A}).
   */
  static final String CTRL_C = "\u0003";

  static final String CTRL_D = "\u0004";
  static final String UP = "\u001bOA";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger RUNS = new AtomicInteger();

  private final Path dir;
  private final List<String> args;
  private final Map<String, String> env;
  private final ArrayNode steps = JSON.createArrayNode();

  /**
   * @param dir where the script, the transcript and {@code HOME} go
   * @param args the arguments after {@code java -jar cqlrows.jar}
   */
  PtySession(Path dir, List<String> args, Map<String, String> env) {
    this.dir = dir;
    this.args = args;
    this.env = env;
  }

  /** Types {@code text}. */
  PtySession send(String text) {
    steps.addObject().put("send", text);
    return this;
  }

  /** Types {@code line} and Enter. */
  PtySession line(String line) {
    return send(line + "\r");
  }

  /** Waits up to {@code seconds} for the output after the previous match to match {@code regex}. */
  PtySession expect(String regex, int seconds) {
    steps.addObject().put("expect", regex).put("timeout", seconds);
    return this;
  }

  PtySession expect(String regex) {
    return expect(regex, 30);
  }

  PtySession sleep(double seconds) {
    steps.addObject().put("sleep", seconds);
    return this;
  }

  /**
   * A finished session.
   *
   * @param passed whether every step passed and the command exited
   * @param transcript what the terminal showed, then {@code [exit N]}
   */
  record Result(boolean passed, String transcript, String problem) {}

  /** Runs the session; fails the test if it does not end in time. */
  Result run() throws IOException, InterruptedException {
    int n = RUNS.incrementAndGet();
    Path driver = dir.resolve("pty_session.py");
    if (!Files.exists(driver)) {
      try (InputStream in = PtySession.class.getResourceAsStream("pty_session.py")) {
        Files.copy(in, driver);
      }
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(JarProcess.jar().toString());
    command.addAll(args);
    ObjectNode script = JSON.createObjectNode();
    script.putPOJO("command", command);
    ObjectNode environment = script.putObject("env");
    environment.put("HOME", dir.toAbsolutePath().toString());
    environment.put("TERM", "xterm");
    env.forEach(environment::put);
    Path transcript = dir.resolve("pty-" + n + ".txt");
    script.put("transcript", transcript.toString());
    script.set("steps", steps);
    Path file = dir.resolve("pty-" + n + ".json");
    JSON.writeValue(file.toFile(), script);
    Path problems = dir.resolve("pty-" + n + ".err");
    Process p =
        new ProcessBuilder("python3", driver.toString(), file.toString())
            .redirectErrorStream(false)
            .redirectOutput(dir.resolve("pty-" + n + ".out").toFile())
            .redirectError(problems.toFile())
            .start();
    if (!p.waitFor(JarProcess.TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail("the terminal session did not end in " + JarProcess.TIMEOUT_SECONDS + " s");
    }
    String shown =
        Files.exists(transcript) ? Files.readString(transcript, StandardCharsets.UTF_8) : "";
    return new Result(
        p.exitValue() == 0, shown, Files.readString(problems, StandardCharsets.UTF_8).strip());
  }
}
