package io.cqlrows.netty.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The {@code cqlrows} command line. One command, {@code replay}: see {@link #USAGE}.
 *
 * <p>Exit status: 0 when the capture was replayed (frame-local errors are printed as output and
 * do not change it), 1 when the input cannot be read or the byte stream is broken (one line on
 * stderr, never a stack trace), 2 for a usage error.
 */
public final class CqlRowsCli {
  /** Printed by {@code --help} and after a usage error. */
  static final String USAGE = String.join("\n",
      "usage: cqlrows replay [--format jsonl|table] [--limit N] FILE",
      "       cqlrows --help",
      "",
      "Replays FILE, the raw server-to-client bytes of one CQL connection (protocol v3 or v4",
      "without compression, or a v5 handshake), through the Netty pipeline and prints every",
      "ROWS result in capture order. No_metadata results print their cells as raw bytes.",
      "",
      "  --format jsonl  one JSON object per ROWS result (the default):",
      "                  {\"stream\":N,\"columns\":[...],\"row_count\":N,\"rows\":[...]}",
      "  --format table  'stream N: M rows' and an aligned text table per ROWS result",
      "  --limit N       stop after N results (error lines included)",
      "",
      "A frame that cannot be parsed prints {\"stream\":N,\"error\":\"...\"} and the replay",
      "goes on.",
      "Exit status: 0 replayed, 1 unreadable input or broken byte stream, 2 usage error.",
      "");

  private CqlRowsCli() {}

  /** Runs the command line with UTF-8 output and exits with its status. */
  public static void main(String[] args) {
    PrintStream out = new PrintStream(
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false,
        StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(
        new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    int status = run(args, out, err);
    out.flush();
    err.flush();
    System.exit(status);
  }

  /**
   * Runs the command line.
   *
   * @param args the arguments
   * @param out where results go
   * @param err where usage and errors go
   * @return the exit status
   */
  static int run(String[] args, PrintStream out, PrintStream err) {
    ReplayOptions options;
    try {
      options = ReplayOptions.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("cqlrows: " + e.getMessage());
      err.print(USAGE);
      return 2;
    }
    if (options == null) {
      out.print(USAGE);
      return 0;
    }
    try {
      return new Replay(options, out, err).run();
    } catch (IOException e) {
      err.println("cqlrows: " + options.file() + ": " + describe(e));
      return 1;
    } catch (RuntimeException e) {
      err.println("cqlrows: " + options.file() + ": " + oneLine(e));
      return 1;
    }
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

  /**
   * The parsed arguments of {@code replay}.
   *
   * @param table whether to print tables rather than JSON lines
   * @param limit how many results (and error lines) to print at most
   * @param file the capture
   */
  record ReplayOptions(boolean table, long limit, Path file) {
    /** Parses the arguments; null means {@code --help}. */
    static ReplayOptions parse(String[] args) {
      for (String a : args) {
        if (a.equals("--help") || a.equals("-h")) {
          return null;
        }
      }
      if (args.length == 0) {
        throw new IllegalArgumentException("missing command");
      }
      if (!args[0].equals("replay")) {
        throw new IllegalArgumentException("unknown command: " + args[0]);
      }
      boolean table = false;
      long limit = Long.MAX_VALUE;
      Path file = null;
      for (int i = 1; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--format") || a.equals("--limit")) {
          if (++i == args.length) {
            throw new IllegalArgumentException(a + " needs a value");
          }
          if (a.equals("--format")) {
            table = parseFormat(args[i]);
          } else {
            limit = parseLimit(args[i]);
          }
        } else if (a.startsWith("-") && a.length() > 1) {
          throw new IllegalArgumentException("unknown option: " + a);
        } else if (file == null) {
          file = Path.of(a);
        } else {
          throw new IllegalArgumentException("unexpected argument: " + a);
        }
      }
      if (file == null) {
        throw new IllegalArgumentException("missing FILE");
      }
      return new ReplayOptions(table, limit, file);
    }

    private static boolean parseFormat(String value) {
      return switch (value) {
        case "jsonl" -> false;
        case "table" -> true;
        default -> throw new IllegalArgumentException(
            "--format: " + value + " (expected: jsonl or table)");
      };
    }

    private static long parseLimit(String value) {
      try {
        long n = Long.parseLong(value);
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException("--limit: " + value + " (expected: a number >= 0)");
    }
  }
}
