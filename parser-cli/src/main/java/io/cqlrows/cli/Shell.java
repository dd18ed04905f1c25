package io.cqlrows.cli;

import io.cqlrows.netty.request.Consistency;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

/**
 * The interactive prompt of {@code cqlrows query}, opened when no statement is given and stdin is a
 * terminal. Line editing and history come from JLine (the history is kept in {@code
 * ~/.cassandra/cqlrows_history}); a statement may span lines and ends with {@code ;} ({@link
 * StatementSplitter}). Ctrl-C at the prompt drops the line being typed; Ctrl-C while a statement
 * runs cancels it and keeps the session; Ctrl-D, {@code EXIT} or {@code QUIT} end it. The commands
 * of cqlsh it knows, each on a line of its own, {@code ;} optional:
 *
 * <ul>
 *   <li>{@code EXPAND [ON|OFF]}: vertical blocks ({@code --format vertical}) or tables;
 *   <li>{@code TRACING [ON|OFF]}: trace each statement and print its trace ({@code --tracing});
 *   <li>{@code PAGING [ON|OFF|N]}: the page size ({@code --page-size}; OFF asks for everything at
 *       once);
 *   <li>{@code CONSISTENCY [LEVEL]}: show or set the consistency level;
 *   <li>{@code SOURCE 'FILE'}: run the statements of a file.
 * </ul>
 *
 * <p>Not thread-safe: one thread reads and runs; the terminal's signal handler only cancels the
 * request in flight ({@link QueryCommand#cancelInFlight}).
 */
final class Shell {
  /** The page size of {@code PAGING ON}, as cqlsh's. */
  static final int DEFAULT_PAGING = 100;

  private final QueryCommand command;
  private final Terminal terminal;
  private final LineReader reader;
  private final PrintStream out;
  private final PrintStream err;
  private final StatementSplitter splitter = new StatementSplitter();

  /** Set by EXIT or QUIT. */
  private boolean exit;

  Shell(QueryCommand command, Terminal terminal, Path history, PrintStream out, PrintStream err) {
    this.command = command;
    this.terminal = terminal;
    this.out = out;
    this.err = err;
    LineReaderBuilder builder = LineReaderBuilder.builder().terminal(terminal).appName("cqlrows");
    if (history != null) {
      builder.variable(LineReader.HISTORY_FILE, history);
    }
    this.reader = builder.build();
  }

  /** Reads and runs statements until Ctrl-D or EXIT. */
  void run() {
    Terminal.SignalHandler previous =
        terminal.handle(Terminal.Signal.INT, signal -> command.cancelInFlight());
    try {
      while (true) { // bounded: each turn reads a line from the user, until end of input
        String line;
        try {
          line = reader.readLine(prompt());
        } catch (UserInterruptException e) {
          splitter.rest(); // Ctrl-C at the prompt: the statement being typed is dropped
          continue;
        } catch (EndOfFileException e) {
          return;
        }
        if (!splitter.inStatement() && shellCommand(line)) {
          out.flush();
          if (exit) {
            return;
          }
          continue;
        }
        List<String> statements;
        try {
          statements = splitter.add(line);
        } catch (IllegalArgumentException e) {
          err.println("cqlrows: " + e.getMessage());
          continue;
        }
        for (String statement : statements) {
          execute(statement);
        }
      }
    } finally {
      terminal.handle(Terminal.Signal.INT, previous);
      out.flush();
    }
  }

  /** The prompt: {@code cqlrows:KEYSPACE> }, or a continuation while a statement is open. */
  private String prompt() {
    if (splitter.inStatement()) {
      return "   ...> ";
    }
    String keyspace = command.keyspace();
    return keyspace == null ? "cqlrows> " : "cqlrows:" + TerminalText.escape(keyspace) + "> ";
  }

  /** Runs one CQL statement; an error or a Ctrl-C ends the statement, not the session. */
  private void execute(String statement) {
    try {
      command.runStatement(statement);
    } catch (CancellationException e) {
      err.println("cqlrows: cancelled");
    } catch (InterruptedException e) {
      Thread.interrupted(); // a Ctrl-C that arrived as an interrupt: the session goes on
      err.println("cqlrows: cancelled");
    } catch (QueryCommand.StatementFailed e) {
      err.println("cqlrows: " + e.getMessage());
    } finally {
      out.flush();
    }
  }

  /**
   * Runs {@code line} if it is one of the shell's commands.
   *
   * @return whether it was one
   */
  boolean shellCommand(String line) {
    String text = line.strip();
    if (text.endsWith(";")) {
      text = text.substring(0, text.length() - 1).strip();
    }
    String[] words = text.split("\\s+", 2);
    String name = words[0].toUpperCase(Locale.ROOT);
    String arg = words.length > 1 ? words[1].strip() : "";
    switch (name) {
      case "EXIT", "QUIT" -> {
        if (!arg.isEmpty()) {
          return false; // not the command: CQL for the server to judge
        }
        exit = true;
      }
      case "EXPAND" -> command.expand = onOff("Expanded output", command.expand, arg);
      case "TRACING" -> command.tracing = onOff("Tracing", command.tracing, arg);
      case "PAGING" -> paging(arg);
      case "CONSISTENCY" -> consistency(arg);
      case "SOURCE" -> source(arg);
      default -> {
        return false;
      }
    }
    return true;
  }

  private boolean onOff(String what, boolean now, String arg) {
    switch (arg.toUpperCase(Locale.ROOT)) {
      case "" -> {
        out.println(what + " is currently " + (now ? "enabled" : "disabled") + ".");
        return now;
      }
      case "ON" -> {
        out.println((now ? what + " is already enabled." : "Now " + lower(what) + " is enabled"));
        return true;
      }
      case "OFF" -> {
        out.println((now ? "Disabled " + lower(what) + "." : what + " is not enabled."));
        return false;
      }
      default -> {
        err.println("cqlrows: " + TerminalText.escape(arg) + ": expected ON or OFF");
        return now;
      }
    }
  }

  private static String lower(String what) {
    return what.substring(0, 1).toLowerCase(Locale.ROOT) + what.substring(1);
  }

  private void paging(String arg) {
    String a = arg.toUpperCase(Locale.ROOT);
    if (a.isEmpty()) {
      out.println(
          command.pageSize > 0
              ? "Query paging is currently enabled. Page size: " + command.pageSize
              : "Query paging is currently disabled.");
    } else if (a.equals("OFF")) {
      command.pageSize = 0;
      out.println("Disabled query paging.");
    } else if (a.equals("ON")) {
      command.pageSize = command.pageSize > 0 ? command.pageSize : DEFAULT_PAGING;
      out.println("Now query paging is enabled. Page size: " + command.pageSize);
    } else {
      try {
        int n = Integer.parseInt(a);
        if (n < 1) {
          throw new NumberFormatException();
        }
        command.pageSize = n;
        out.println("Page size: " + n);
      } catch (NumberFormatException e) {
        err.println("cqlrows: " + TerminalText.escape(arg) + ": expected ON, OFF or a page size");
      }
    }
  }

  private void consistency(String arg) {
    if (arg.isEmpty()) {
      out.println("Current consistency level is " + command.consistency + ".");
      return;
    }
    try {
      command.consistency = Consistency.valueOf(arg.toUpperCase(Locale.ROOT));
      out.println("Consistency level set to " + command.consistency + ".");
    } catch (IllegalArgumentException e) {
      err.println("cqlrows: " + TerminalText.escape(arg) + ": not a consistency level");
    }
  }

  /** {@code SOURCE 'FILE'}: the statements of FILE, each run as if typed. */
  private void source(String arg) {
    String name = arg;
    if (name.length() >= 2
        && ((name.startsWith("'") && name.endsWith("'"))
            || (name.startsWith("\"") && name.endsWith("\"")))) {
      name = name.substring(1, name.length() - 1);
    }
    if (name.isEmpty()) {
      err.println("cqlrows: SOURCE needs a file: SOURCE 'FILE'");
      return;
    }
    if (name.equals("~") || name.startsWith("~/")) {
      name = System.getProperty("user.home") + name.substring(1);
    }
    StatementSplitter file = new StatementSplitter();
    try (BufferedReader lines = Files.newBufferedReader(Path.of(name), StandardCharsets.UTF_8)) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        for (String statement : file.add(line)) {
          execute(statement);
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      err.println("cqlrows: " + TerminalText.escape(name) + ": " + CqlRowsCli.oneLine(e));
      return;
    }
    String rest = file.rest();
    if (!rest.isEmpty()) {
      execute(rest); // the last statement may end without ';'
    }
  }
}
