package io.cqlrows.netty.client;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * An ERROR response (native_protocol_v5.spec §4.2.1, §8): the server refused one request. Only
 * the {@code [int] code} and {@code [string] message} are decoded; the code-specific fields after
 * them are ignored. Immutable.
 */
public final class CqlServerError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Error code 0x2200: the request is invalid. */
  public static final int INVALID = 0x2200;
  /** Error code 0x2500: the prepared statement id is unknown (re-prepare). */
  public static final int UNPREPARED = 0x2500;

  private final int code;
  private final String serverMessage;

  /**
   * An error with the server's code and message.
   *
   * @param code the error code, e.g. {@link #INVALID}
   * @param serverMessage the server's message
   */
  public CqlServerError(int code, String serverMessage) {
    super(String.format("server error 0x%04x (%s): %s", code, name(code), serverMessage));
    this.code = code;
    this.serverMessage = serverMessage;
  }

  /**
   * Decodes an ERROR body: {@code [int] code [string] message ...}.
   *
   * @param body the body after the envelope prelude. Borrowed: indices unchanged.
   * @throws IllegalArgumentException if the body is too short for its code and message
   */
  public static CqlServerError decode(ByteBuf body) {
    int at = body.readerIndex();
    int end = body.writerIndex();
    if (end - at < 6) {
      throw new IllegalArgumentException(
          "ERROR body of " + (end - at) + " bytes (expected: >= 6, code and message length)");
    }
    int code = body.getInt(at);
    int length = body.getUnsignedShort(at + 4);
    if (length > end - at - 6) {
      throw new IllegalArgumentException("ERROR message length: " + length + " (expected: <= "
          + (end - at - 6) + ", the bytes left)");
    }
    return new CqlServerError(code, body.toString(at + 6, length, StandardCharsets.UTF_8));
  }

  /** The error code (§8), e.g. {@link #INVALID} or {@link #UNPREPARED}. */
  public int code() {
    return code;
  }

  /** The server's message, as sent. */
  public String serverMessage() {
    return serverMessage;
  }

  /** The spec's name of an error code (§8), or "unknown". */
  static String name(int code) {
    switch (code) {
      case 0x0000: return "Server error";
      case 0x000A: return "Protocol error";
      case 0x0100: return "Bad credentials";
      case 0x1000: return "Unavailable";
      case 0x1001: return "Overloaded";
      case 0x1002: return "Is_bootstrapping";
      case 0x1003: return "Truncate_error";
      case 0x1100: return "Write_timeout";
      case 0x1200: return "Read_timeout";
      case 0x1300: return "Read_failure";
      case 0x1400: return "Function_failure";
      case 0x1500: return "Write_failure";
      case 0x1600: return "CDC_write_failure";
      case 0x1700: return "CAS_write_unknown";
      case 0x2000: return "Syntax_error";
      case 0x2100: return "Unauthorized";
      case INVALID: return "Invalid";
      case 0x2300: return "Config_error";
      case 0x2400: return "Already_exists";
      case UNPREPARED: return "Unprepared";
      default: return "unknown";
    }
  }
}
