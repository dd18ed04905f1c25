package io.cqlrows.capture.pcap;

/**
 * Timestamp arithmetic for capture files: seconds and ticks of any pcapng resolution to nanoseconds
 * since the epoch. Saturates at {@link Long#MAX_VALUE} (the year 2262) instead of overflowing, so
 * that a garbage timestamp is merely wrong, never an exception. Stateless.
 */
final class Timestamps {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private Timestamps() {}

  /** {@code seconds * 10^9}, saturating at both ends. */
  static long secondsToNanos(long seconds) {
    if (seconds > Long.MAX_VALUE / NANOS_PER_SECOND) {
      return Long.MAX_VALUE;
    }
    if (seconds < Long.MIN_VALUE / NANOS_PER_SECOND) {
      return Long.MIN_VALUE;
    }
    return seconds * NANOS_PER_SECOND;
  }

  /** {@code a + b}, saturating at both ends. */
  static long add(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /**
   * True if a pcapng {@code if_tsresol} value can be converted: a decimal exponent up to 18 or a
   * binary one (high bit set) up to 62.
   */
  static boolean isValidResolution(int tsresol) {
    int exponent = tsresol & 0x7F;
    return (tsresol & 0x80) == 0 ? exponent <= 18 : exponent <= 62;
  }

  /**
   * Converts a pcapng timestamp to nanoseconds.
   *
   * @param ticks the unsigned 64-bit timestamp, in units of the resolution
   * @param tsresol the interface's {@code if_tsresol}: {@code 10^-n} seconds, or {@code 2^-n} if
   *     the high bit is set; {@link #isValidResolution} holds
   */
  static long ticksToNanos(long ticks, int tsresol) {
    if (ticks < 0) {
      return Long.MAX_VALUE; // beyond 2^63 ticks of any resolution we read
    }
    int exponent = tsresol & 0x7F;
    if ((tsresol & 0x80) == 0) {
      long unit = pow10(Math.abs(9 - exponent));
      return exponent <= 9 ? multiply(ticks, unit) : ticks / unit;
    }
    long seconds = ticks >>> exponent;
    long fraction = ticks & ((1L << exponent) - 1);
    // keep the fraction below 2^33 so that fraction * 10^9 fits in a long
    int drop = Math.max(0, exponent - 33);
    long fractionNanos = ((fraction >>> drop) * NANOS_PER_SECOND) >>> (exponent - drop);
    return add(secondsToNanos(seconds), fractionNanos);
  }

  private static long multiply(long a, long b) {
    return a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
  }

  private static long pow10(int n) {
    long r = 1;
    for (int i = 0; i < n; i++) {
      r *= 10;
    }
    return r;
  }
}
