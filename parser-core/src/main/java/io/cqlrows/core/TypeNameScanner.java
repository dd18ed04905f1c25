package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The characters of a custom type class name, for {@link CustomTypeNameParser}: a position in the
 * string and the tokens of its syntax, which are identifiers (class names, keyspaces, vector
 * dimensions), hex-encoded UTF-8 names, single punctuation characters and the blanks between them.
 * Errors name the position and quote the string (at most its first 120 characters).
 */
final class TypeNameScanner {
  private static final String FIELD = "custom type name";
  private static final int QUOTE_LIMIT = 120;

  private final String str;
  private int pos;

  TypeNameScanner(String str) {
    this.str = str;
  }

  /** The length of the whole string. */
  int length() {
    return str.length();
  }

  /** The index of the next character to read. */
  int position() {
    return pos;
  }

  /** Whether every character has been read. */
  boolean atEnd() {
    return pos >= str.length();
  }

  /** The characters {@code [from, to)}, verbatim. */
  String text(int from, int to) {
    return str.substring(from, to);
  }

  /**
   * Skips a parenthesised run, from the {@code '('} at the position to its matching {@code ')'}
   * inclusive, without parsing it: identifiers, blanks, {@code , : = >} and nested parentheses.
   *
   * @param depth the nesting level of the type whose parameters these are
   * @param maxDepth {@link ParseLimits#maxTypeDepth()}, which the parentheses may not take the
   *     nesting beyond
   */
  void skipParenthesized(int depth, int maxDepth) {
    int open = pos;
    int level = 0;
    for (; pos < str.length(); pos++) {
      char c = str.charAt(pos);
      if (c == '(') {
        level++;
        if (depth + level > maxDepth) {
          throw fail(Reason.TYPE_TOO_DEEP, "types nest deeper than " + maxDepth);
        }
      } else if (c == ')') {
        if (--level == 0) {
          pos++;
          return;
        }
      } else if (!isIdentifierChar(c) && !isBlank(c) && ",:=>".indexOf(c) < 0) {
        throw fail(Reason.INVALID_TYPE_NAME, "unexpected " + found());
      }
    }
    throw fail(Reason.INVALID_TYPE_NAME, "unbalanced '(' opened", open);
  }

  /** Reads a hex-encoded UTF-8 string (UDT and field names). */
  String readHex(String what) {
    int at = pos;
    String hex = readIdentifier(what);
    if (hex.length() % 2 != 0) {
      throw fail(
          Reason.INVALID_TYPE_NAME, what + " '" + hex + "' has an odd number of hex digits", at);
    }
    byte[] bytes = new byte[hex.length() / 2];
    for (int i = 0; i < bytes.length; i++) {
      int hi = Character.digit(hex.charAt(2 * i), 16);
      int lo = Character.digit(hex.charAt(2 * i + 1), 16);
      if (hi < 0 || lo < 0) {
        throw fail(Reason.INVALID_TYPE_NAME, what + " '" + hex + "' is not hex", at);
      }
      bytes[i] = (byte) (hi << 4 | lo);
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw fail(Reason.INVALID_TYPE_NAME, what + " '" + hex + "' is not UTF-8", at);
    }
  }

  /** Reads a non-empty run of identifier characters. */
  String readIdentifier(String what) {
    int start = pos;
    while (pos < str.length() && isIdentifierChar(str.charAt(pos))) {
      pos++;
    }
    if (pos == start) {
      throw fail(Reason.INVALID_TYPE_NAME, "expected " + what + ", found " + found());
    }
    return str.substring(start, pos);
  }

  /** The characters of an identifier: letters, digits and {@code - + . _ &}. */
  static boolean isIdentifierChar(char c) {
    return (c >= '0' && c <= '9')
        || (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '-'
        || c == '+'
        || c == '.'
        || c == '_'
        || c == '&';
  }

  /** The blanks allowed between tokens: space, tab and newline. */
  static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\n';
  }

  /** Skips any blanks at the position. */
  void skipBlanks() {
    while (pos < str.length() && isBlank(str.charAt(pos))) {
      pos++;
    }
  }

  /** Whether the next character is {@code c}. */
  boolean peek(char c) {
    return pos < str.length() && str.charAt(pos) == c;
  }

  /** Reads the next character if it is {@code c}. */
  boolean consume(char c) {
    if (peek(c)) {
      pos++;
      return true;
    }
    return false;
  }

  /** Reads the next character, which must be {@code c}. */
  void expect(char c) {
    if (!consume(c)) {
      throw fail(Reason.INVALID_TYPE_NAME, "expected '" + c + "', found " + found());
    }
  }

  /** The character at the current position, for messages. */
  String found() {
    return pos < str.length() ? "'" + str.charAt(pos) + "'" : "end of string";
  }

  /** The error {@code what} at the current position. */
  CqlParseException fail(Reason reason, String what) {
    return fail(reason, what, pos);
  }

  /** The error {@code what} at char {@code at}. */
  CqlParseException fail(Reason reason, String what, int at) {
    String quoted = str.length() <= QUOTE_LIMIT ? str : str.substring(0, QUOTE_LIMIT) + "...";
    return CqlParseException.at(
        reason, FIELD, -1, null, what + " at char " + at + " of \"" + quoted + "\"");
  }
}
