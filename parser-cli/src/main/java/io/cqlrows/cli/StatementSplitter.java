package io.cqlrows.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits CQL text into statements at the semicolons that end them, as cqlsh does: a semicolon in a
 * string ({@code '...'}, with {@code ''} inside), a quoted name ({@code "..."}), a {@code $$...$$}
 * block or a comment ({@code --} or {@code //} to the end of the line, {@code /* ... *}{@code /})
 * does not end a statement. Text is fed line by line; the statements it completes are returned, and
 * the rest is kept for the next line, up to {@value #MAX_CHARS} characters. Not thread-safe.
 */
final class StatementSplitter {
  /** The longest statement kept: a larger one is refused (the server refuses far smaller ones). */
  static final int MAX_CHARS = 16 << 20;

  private final StringBuilder pending = new StringBuilder();

  /** What the scan is inside of when a line ends. */
  private enum State {
    CODE,
    STRING,
    NAME,
    DOLLARS,
    BLOCK_COMMENT
  }

  private State state = State.CODE;

  /**
   * Adds a line (without its line break) and returns the statements it completes, trimmed.
   *
   * @throws IllegalArgumentException if the statement in progress grows past {@link #MAX_CHARS} (it
   *     is then dropped)
   */
  List<String> add(String line) {
    if (pending.length() + line.length() > MAX_CHARS) {
      rest();
      throw new IllegalArgumentException(
          "a statement longer than " + MAX_CHARS + " characters (no ';' to end it?)");
    }
    List<String> done = new ArrayList<>();
    int i = 0;
    int n = line.length();
    while (i < n) {
      char c = line.charAt(i);
      char next = i + 1 < n ? line.charAt(i + 1) : '\0';
      switch (state) {
        case CODE -> {
          if (c == ';') {
            String statement = pending.toString().strip();
            pending.setLength(0);
            if (!statement.isEmpty()) {
              done.add(statement);
            }
            i++;
            continue;
          }
          if ((c == '-' && next == '-') || (c == '/' && next == '/')) {
            i = n; // a comment to the end of the line: left out
            continue;
          }
          if (c == '/' && next == '*') {
            state = State.BLOCK_COMMENT;
            i += 2;
            continue;
          }
          if (c == '\'') {
            state = State.STRING;
          } else if (c == '"') {
            state = State.NAME;
          } else if (c == '$' && next == '$') {
            state = State.DOLLARS;
            pending.append("$$");
            i += 2;
            continue;
          }
          pending.append(c);
        }
        case STRING, NAME -> {
          char quote = state == State.STRING ? '\'' : '"';
          pending.append(c);
          if (c == quote) {
            if (next == quote) {
              pending.append(next); // a doubled quote stays inside
              i += 2;
              continue;
            }
            state = State.CODE;
          }
        }
        case DOLLARS -> {
          if (c == '$' && next == '$') {
            pending.append("$$");
            state = State.CODE;
            i += 2;
            continue;
          }
          pending.append(c);
        }
        case BLOCK_COMMENT -> {
          if (c == '*' && next == '/') {
            state = State.CODE;
            i += 2;
            continue;
          }
        }
      }
      i++;
    }
    if (state != State.BLOCK_COMMENT && pending.length() > 0) {
      pending.append('\n');
    }
    return done;
  }

  /** Whether part of a statement is waiting for its semicolon. */
  boolean inStatement() {
    return !pending.toString().isBlank() || state != State.CODE;
  }

  /** The text not yet ended by a semicolon, trimmed; then forgets it. */
  String rest() {
    String rest = pending.toString().strip();
    pending.setLength(0);
    state = State.CODE;
    return rest;
  }
}
