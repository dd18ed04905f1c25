package io.cqlrows.netty.frame;

import io.cqlrows.core.ProtocolFeatures;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * An ERROR response (native_protocol_v5.spec sections 4.2.1 and 8): the server refused one request.
 * The {@code [int] code} and {@code [string] message} are decoded, and the fields of ScyllaDB's
 * rate-limit error ({@link ProtocolFeatures#SCYLLA_RATE_LIMIT_ERROR}: {@code <op_type
 * [byte]><rejected_by_coordinator [byte]>}); other code-specific fields are ignored. Immutable.
 */
public final class CqlServerError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Error code 0x2200: the request is invalid. */
  public static final int INVALID = 0x2200;

  /** Error code 0x2500: the prepared statement id is unknown (re-prepare). */
  public static final int UNPREPARED = 0x2500;

  private static final String RATE_LIMIT_NAME = "Rate_limit_error";

  /** {@link #opType()} of a rate-limit error: a read was rejected. */
  public static final int OP_READ = 0;

  /** {@link #opType()} of a rate-limit error: a write was rejected. */
  public static final int OP_WRITE = 1;

  private final int code;
  private final String serverMessage;
  private final boolean rateLimit;
  private final int opType;
  private final boolean rejectedByCoordinator;

  /**
   * An error with the server's code and message.
   *
   * @param code the error code, e.g. {@link #INVALID}
   * @param serverMessage the server's message
   */
  public CqlServerError(int code, String serverMessage) {
    this(code, serverMessage, false, -1, false);
  }

  private CqlServerError(
      int code,
      String serverMessage,
      boolean rateLimit,
      int opType,
      boolean rejectedByCoordinator) {
    super(
        String.format(
            "server error 0x%04x (%s): %s",
            code, rateLimit ? RATE_LIMIT_NAME : name(code), serverMessage));
    this.code = code;
    this.serverMessage = serverMessage;
    this.rateLimit = rateLimit;
    this.opType = opType;
    this.rejectedByCoordinator = rejectedByCoordinator;
  }

  /**
   * Decodes an ERROR body of a connection without protocol extensions.
   *
   * @see #decode(ByteBuf, ProtocolFeatures)
   */
  public static CqlServerError decode(ByteBuf body) {
    return decode(body, ProtocolFeatures.NONE);
  }

  /**
   * Decodes an ERROR body: {@code [int] code [string] message ...}; with {@link
   * ProtocolFeatures#SCYLLA_RATE_LIMIT_ERROR} on, the code it names is followed by {@code <op_type
   * [byte]><rejected_by_coordinator [byte]>}.
   *
   * @param body the body after the envelope prelude. Borrowed: indices unchanged.
   * @param features the connection's extensions
   * @throws IllegalArgumentException if the body is too short for its code, message and fields
   */
  public static CqlServerError decode(ByteBuf body, ProtocolFeatures features) {
    int at = body.readerIndex();
    int end = body.writerIndex();
    if (end - at < 6) {
      throw new IllegalArgumentException(
          "ERROR body of " + (end - at) + " bytes (expected: >= 6, code and message length)");
    }
    int code = body.getInt(at);
    int length = body.getUnsignedShort(at + 4);
    if (length > end - at - 6) {
      throw new IllegalArgumentException(
          "ERROR message length: "
              + length
              + " (expected: <= "
              + (end - at - 6)
              + ", the bytes left)");
    }
    String message = body.toString(at + 6, length, StandardCharsets.UTF_8);
    OptionalInt rateLimitCode = features.rateLimitErrorCode();
    if (rateLimitCode.isEmpty() || rateLimitCode.getAsInt() != code) {
      return new CqlServerError(code, message);
    }
    int fields = at + 6 + length;
    if (end - fields < 2) {
      throw new IllegalArgumentException(
          "rate-limit ERROR body: "
              + (end - fields)
              + " bytes after the message (expected: 2, op_type and rejected_by_coordinator)");
    }
    return new CqlServerError(
        code, message, true, body.getUnsignedByte(fields), body.getByte(fields + 1) != 0);
  }

  /** The error code (§8), e.g. {@link #INVALID} or {@link #UNPREPARED}. */
  public int code() {
    return code;
  }

  /** The server's message, as sent. */
  public String serverMessage() {
    return serverMessage;
  }

  /**
   * The spec's name of the code (§8), e.g. {@code Invalid}, {@code Read_timeout}; {@code
   * Rate_limit_error} for ScyllaDB's rate-limit error; "unknown" for other codes.
   */
  public String codeName() {
    return rateLimit ? RATE_LIMIT_NAME : name(code);
  }

  /**
   * Whether this is ScyllaDB's rate-limit error: its code is the one SUPPORTED advertised for
   * {@link ProtocolFeatures#SCYLLA_RATE_LIMIT_ERROR} and the extension is on. Without the extension
   * ScyllaDB reports the same condition as Config_error (0x2300).
   */
  public boolean isRateLimitError() {
    return rateLimit;
  }

  /**
   * The operation a rate-limit error rejected: {@link #OP_READ}, {@link #OP_WRITE} (or another byte
   * a newer server defines); -1 if this is not a rate-limit error.
   */
  public int opType() {
    return opType;
  }

  /**
   * Whether the coordinator rejected the operation (false: a replica did); false if this is not a
   * rate-limit error.
   */
  public boolean rejectedByCoordinator() {
    return rejectedByCoordinator;
  }

  /** The spec's name of an error code (§8), or "unknown". */
  static String name(int code) {
    switch (code) {
      case 0x0000:
        return "Server error";
      case 0x000A:
        return "Protocol error";
      case 0x0100:
        return "Bad credentials";
      case 0x1000:
        return "Unavailable";
      case 0x1001:
        return "Overloaded";
      case 0x1002:
        return "Is_bootstrapping";
      case 0x1003:
        return "Truncate_error";
      case 0x1100:
        return "Write_timeout";
      case 0x1200:
        return "Read_timeout";
      case 0x1300:
        return "Read_failure";
      case 0x1400:
        return "Function_failure";
      case 0x1500:
        return "Write_failure";
      case 0x1600:
        return "CDC_write_failure";
      case 0x1700:
        return "CAS_write_unknown";
      case 0x2000:
        return "Syntax_error";
      case 0x2100:
        return "Unauthorized";
      case INVALID:
        return "Invalid";
      case 0x2300:
        return "Config_error";
      case 0x2400:
        return "Already_exists";
      case UNPREPARED:
        return "Unprepared";
      default:
        return "unknown";
    }
  }
}
