package io.cqlrows.netty.frame;

/**
 * The message opcodes of protocol v3 to v5 (native_protocol_v5.spec section 2.4.1.4,
 * native_protocol_v4.spec section 2.4). There is no 0x04: it was v1's CREDENTIALS.
 */
public enum Opcode {
  /** Response: an error (code and message). */
  ERROR(0x00),
  /** Request: opens the connection with options (CQL_VERSION, COMPRESSION). */
  STARTUP(0x01),
  /** Response: the connection is ready after STARTUP. */
  READY(0x02),
  /** Response: the server requires authentication. */
  AUTHENTICATE(0x03),
  /** Request: asks for the supported STARTUP options. */
  OPTIONS(0x05),
  /** Response: the supported STARTUP options. */
  SUPPORTED(0x06),
  /** Request: a CQL query string. */
  QUERY(0x07),
  /** Response: the result of QUERY, PREPARE, EXECUTE or BATCH. */
  RESULT(0x08),
  /** Request: prepares a query. */
  PREPARE(0x09),
  /** Request: executes a prepared statement. */
  EXECUTE(0x0A),
  /** Request: subscribes to server events. */
  REGISTER(0x0B),
  /** Server-initiated event (stream -1). */
  EVENT(0x0C),
  /** Request: a batch of statements. */
  BATCH(0x0D),
  /** Response: an authentication challenge. */
  AUTH_CHALLENGE(0x0E),
  /** Request: an authentication token. */
  AUTH_RESPONSE(0x0F),
  /** Response: authentication succeeded. */
  AUTH_SUCCESS(0x10);

  private static final Opcode[] BY_CODE = new Opcode[0x11];

  static {
    for (Opcode op : values()) {
      BY_CODE[op.code] = op;
    }
  }

  private final int code;

  Opcode(int code) {
    this.code = code;
  }

  /** The opcode byte. */
  public int code() {
    return code;
  }

  /**
   * The opcode for a header byte.
   *
   * @param code the opcode byte, 0-255
   * @return the opcode, or {@code null} if the protocol defines none for {@code code}
   */
  public static Opcode fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
