package io.cqlrows.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * The {@code cqlrows} command line: {@code query}, {@code replay}, {@code stats} and {@code
 * digest}; see {@link Usage}.
 *
 * <p>Exit status of {@code replay} and {@code stats}: 0 when the capture was replayed and every
 * response decoded; 1 when the input cannot be read or a byte stream is broken (one line on stderr
 * per problem, never a stack trace), or when a response could not be decoded ({@code replay} prints
 * an error for it and goes on; {@code stats} counts it); 2 for a usage error.
 */
public final class CqlRowsCli {
  private CqlRowsCli() {}

  /** Runs the command line with UTF-8 output and exits with its status. */
  public static void main(String[] args) {
    PrintStream out =
        new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
            false,
            StandardCharsets.UTF_8);
    PrintStream err =
        new PrintStream(
            new TerminalText.Filter(new FileOutputStream(FileDescriptor.err)),
            true,
            StandardCharsets.UTF_8);
    // the logging provider writes to System.err, and Netty's warnings may quote server text
    System.setErr(err);
    int status = run(args, out, err);
    out.flush();
    err.flush();
    System.exit(status);
  }

  /**
   * Runs the command line.
   *
   * @param args the arguments
   * @param out where results and help go
   * @param err where usage errors, progress and input errors go; what the command writes there
   *     reaches it through a {@link TerminalText.Filter}, since messages carry server and capture
   *     text (stderr never carries data)
   * @return the exit status
   */
  static int run(String[] args, PrintStream out, PrintStream err) {
    PrintStream terminal =
        new PrintStream(new TerminalText.Filter(err), true, StandardCharsets.UTF_8);
    try {
      return command(args, out, terminal);
    } finally {
      terminal.flush();
    }
  }

  private static int command(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0 && args[0].equals("query")) {
      QueryOptions query;
      try {
        query = QueryOptions.parse(args);
      } catch (CliOptions.Help help) {
        out.print(help.getMessage());
        return 0;
      } catch (IllegalArgumentException e) {
        return usageError(e, err);
      }
      return new QueryCommand(query, out, err).run();
    }
    CliOptions options;
    try {
      options = CliOptions.parse(args);
    } catch (CliOptions.Help help) {
      out.print(help.getMessage());
      return 0;
    } catch (IllegalArgumentException e) {
      return usageError(e, err);
    }
    try {
      return switch (options.command()) {
        case "stats" -> new StatsCommand(options, out, err).run();
        case "digest" -> new DigestCommand(options, out, err).run();
        default -> new ReplayCommand(options, out, err).run();
      };
    } catch (IOException e) {
      err.println("cqlrows: " + options.file() + ": " + describe(e));
      return 1;
    } catch (RuntimeException e) {
      err.println("cqlrows: " + options.file() + ": " + oneLine(e));
      return 1;
    } finally {
      out.flush();
    }
  }

  private static int usageError(IllegalArgumentException e, PrintStream err) {
    err.println("cqlrows: " + e.getMessage());
    err.print(e instanceof Usage.Mistake u ? u.help : Usage.MAIN);
    return 2;
  }

  private static String describe(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return oneLine(e);
  }

  /** The message on one line, or the exception's class name when it has none. */
  static String oneLine(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return m.replaceAll("\\s*[\\r\\n]+\\s*", " ");
  }
}
