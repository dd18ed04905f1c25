package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command jar ({@code target/cqlrows.jar}, named by the system property {@value #JAR_PROPERTY})
 * run as {@code java [JVM options] -jar cqlrows.jar ARGS} in a child process of the same JDK, with
 * its stdout and stderr in files of a folder. Stateless apart from a counter for file names; each
 * process is owned by the test that starts it, which waits for it or ends it through its handle.
 */
final class JarProcess {
  /** Set by the failsafe configuration of parser-cli's pom. */
  static final String JAR_PROPERTY = "cqlrows.cli.jar";

  /** The longest a run may take before the test fails and the process is killed. */
  static final long TIMEOUT_SECONDS = 300;

  /** The line each statement ends with on stderr: {@code cqlrows: N rows in M pages}. */
  private static final Pattern COUNT =
      Pattern.compile("^cqlrows: (\\d+) rows? in (\\d+) pages?( \\(interrupted\\))?$");

  private static final AtomicInteger RUNS = new AtomicInteger();

  private JarProcess() {}

  /**
   * A finished run.
   *
   * @param status the exit status
   * @param out the file holding its stdout
   * @param err its stderr
   */
  record Result(int status, Path out, String err) {
    /** The lines of stdout. */
    List<String> lines() {
      try {
        return Files.readAllLines(out, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Stdout as text. */
    String text() {
      try {
        return Files.readString(out, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The lines of stderr. */
    List<String> errLines() {
      return err.lines().toList();
    }

    /** Each statement's {@code [rows, pages]}, from its count line on stderr, in order. */
    List<long[]> counts() {
      List<long[]> counts = new ArrayList<>();
      for (String line : errLines()) {
        Matcher m = COUNT.matcher(line);
        if (m.matches()) {
          counts.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
      }
      return counts;
    }
  }

  /** The jar, which must exist (the package phase made it). */
  static Path jar() {
    String property = System.getProperty(JAR_PROPERTY, "");
    assertTrue(!property.isBlank(), "the system property " + JAR_PROPERTY + " names the jar");
    Path jar = Path.of(property);
    assertTrue(Files.isRegularFile(jar), jar + " exists (mvn package makes it)");
    return jar;
  }

  /**
   * A started run.
   *
   * @param process the child process
   * @param out the file its stdout goes to
   * @param err the file its stderr goes to
   */
  record Started(Process process, Path out, Path err) {
    /** Waits for the process; kills it and fails after {@link #TIMEOUT_SECONDS}. */
    Result await() throws IOException, InterruptedException {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        fail("the command did not exit in " + TIMEOUT_SECONDS + " s: " + process.info());
      }
      return new Result(process.exitValue(), out, Files.readString(err, StandardCharsets.UTF_8));
    }
  }

  /**
   * Starts {@code java jvmOptions -jar cqlrows.jar args} with {@code env} added to this JVM's
   * environment; stdout goes to {@code <dir>/run-N.out}, stderr to {@code <dir>/run-N.err}. Its
   * {@code HOME} is {@code dir} unless {@code env} names one, so that no cqlsh configuration file
   * of the user running the tests is read.
   */
  static Started start(
      Path dir, List<String> jvmOptions, Map<String, String> env, List<String> args)
      throws IOException {
    int n = RUNS.incrementAndGet();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(args);
    Path out = dir.resolve("run-" + n + ".out");
    Path err = dir.resolve("run-" + n + ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("HOME", dir.toAbsolutePath().toString());
    builder.environment().putAll(env);
    Process process = builder.start();
    process.getOutputStream().close();
    return new Started(process, out, err);
  }

  /** Runs the jar and waits for it. */
  static Result run(Path dir, List<String> jvmOptions, Map<String, String> env, List<String> args)
      throws IOException, InterruptedException {
    return start(dir, jvmOptions, env, args).await();
  }
}
