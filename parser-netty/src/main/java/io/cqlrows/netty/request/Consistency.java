package io.cqlrows.netty.request;

/** The {@code [consistency]} levels of a request (native_protocol_v5.spec section 3). */
public enum Consistency {
  /** ANY (writes only). */
  ANY(0x0000),
  /** ONE. */
  ONE(0x0001),
  /** TWO. */
  TWO(0x0002),
  /** THREE. */
  THREE(0x0003),
  /** QUORUM. */
  QUORUM(0x0004),
  /** ALL. */
  ALL(0x0005),
  /** LOCAL_QUORUM. */
  LOCAL_QUORUM(0x0006),
  /** EACH_QUORUM (writes only). */
  EACH_QUORUM(0x0007),
  /** SERIAL (serial phase of conditional updates, and reads of their outcome). */
  SERIAL(0x0008),
  /** LOCAL_SERIAL. */
  LOCAL_SERIAL(0x0009),
  /** LOCAL_ONE. */
  LOCAL_ONE(0x000A);

  private final int code;

  Consistency(int code) {
    this.code = code;
  }

  /** The {@code [short]} written on the wire. */
  public int code() {
    return code;
  }

  /**
   * The level for a wire code.
   *
   * @throws IllegalArgumentException for a code the protocol does not define
   */
  public static Consistency fromCode(int code) {
    for (Consistency c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        String.format("consistency: 0x%04x (expected: 0x0000-0x000a)", code));
  }
}
