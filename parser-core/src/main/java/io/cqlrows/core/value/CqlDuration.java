package io.cqlrows.core.value;

/**
 * A CQL {@code duration}: months, days and nanoseconds, each signed (native_protocol_v5.spec
 * section 5.8: three zig-zag vints). Cassandra requires all three to have the same sign.
 *
 * @param months the months component
 * @param days the days component
 * @param nanoseconds the nanoseconds component
 */
public record CqlDuration(int months, int days, long nanoseconds) {
  private static final long NANOS_PER_MICRO = 1000L;
  private static final long NANOS_PER_MILLI = 1000L * NANOS_PER_MICRO;
  private static final long NANOS_PER_SECOND = 1000L * NANOS_PER_MILLI;
  private static final long NANOS_PER_MINUTE = 60L * NANOS_PER_SECOND;
  private static final long NANOS_PER_HOUR = 60L * NANOS_PER_MINUTE;
  private static final int MONTHS_PER_YEAR = 12;

  /**
   * The compact form used by the Apache Cassandra Java driver's {@code CqlDuration.toString()}:
   * {@code 1y2mo25d5h6m7s8ms9us10ns}, zero units omitted, a leading {@code -} when negative, and
   * the empty string for a zero duration.
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (months < 0 || days < 0 || nanoseconds < 0) {
      sb.append('-');
    }
    long remainder = append(sb, Math.abs(months), MONTHS_PER_YEAR, "y");
    append(sb, remainder, 1, "mo");
    append(sb, Math.abs(days), 1, "d");
    if (nanoseconds != 0) {
      remainder = append(sb, Math.abs(nanoseconds), NANOS_PER_HOUR, "h");
      remainder = append(sb, remainder, NANOS_PER_MINUTE, "m");
      remainder = append(sb, remainder, NANOS_PER_SECOND, "s");
      remainder = append(sb, remainder, NANOS_PER_MILLI, "ms");
      remainder = append(sb, remainder, NANOS_PER_MICRO, "us");
      append(sb, remainder, 1L, "ns");
    }
    return sb.toString();
  }

  private static long append(StringBuilder sb, long dividend, long divisor, String unit) {
    if (dividend == 0 || dividend < divisor) {
      return dividend;
    }
    sb.append(dividend / divisor).append(unit);
    return dividend % divisor;
  }
}
