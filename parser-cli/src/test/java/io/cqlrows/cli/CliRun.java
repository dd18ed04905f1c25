package io.cqlrows.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One in-process run of the command line, as {@code java -jar cqlrows.jar ARGS} would run it: the
 * exit status and what it printed on stdout and stderr.
 *
 * @param status the exit status
 * @param out stdout
 * @param err stderr
 */
record CliRun(int status, String out, String err) {
  /** Runs {@link CqlRowsCli#run} with {@code args}. */
  static CliRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      status = CqlRowsCli.run(args, o, e);
    }
    return new CliRun(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The lines of stdout. */
  List<String> lines() {
    return out.lines().toList();
  }
}
