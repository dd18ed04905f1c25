package io.cqlrows.capture.pcap;

import java.io.IOException;

/**
 * Reads classic libpcap files: a 24-byte file header, then per packet a 16-byte record header
 * (seconds, micro- or nanoseconds, captured length, original length) and the captured bytes. Both
 * byte orders; magic {@code a1b2c3d4} (microseconds) and {@code a1b23c4d} (nanoseconds).
 *
 * <p>Not thread-safe.
 */
final class ClassicPcapSource implements PacketSource {
  static final int MAGIC_MICROS = 0xA1B2C3D4;
  static final int MAGIC_NANOS = 0xA1B23C4D;
  private static final int FILE_HEADER = 24;
  private static final int RECORD_HEADER = 16;

  private final PcapInput in;

  /** True if the file was written big-endian. */
  private final boolean bigEndian;

  /** True for nanosecond timestamps, false for microseconds. */
  private final boolean nanos;

  /** The one link type of the file. */
  private final int linkType;

  /** Reused record header. */
  private final byte[] record = new byte[RECORD_HEADER];

  private ClassicPcapSource(PcapInput in, boolean bigEndian, boolean nanos, int linkType) {
    this.in = in;
    this.bigEndian = bigEndian;
    this.nanos = nanos;
    this.linkType = linkType;
  }

  /** True if the first four bytes, read big-endian, are a classic magic in either order. */
  static boolean isMagic(int magic) {
    int swapped = Integer.reverseBytes(magic);
    return magic == MAGIC_MICROS
        || magic == MAGIC_NANOS
        || swapped == MAGIC_MICROS
        || swapped == MAGIC_NANOS;
  }

  /**
   * Reads the rest of the file header.
   *
   * @param magic the first four bytes read big-endian, already consumed; {@link #isMagic} holds
   */
  static ClassicPcapSource open(PcapInput in, int magic) throws IOException {
    boolean bigEndian = magic == MAGIC_MICROS || magic == MAGIC_NANOS;
    int native32 = bigEndian ? magic : Integer.reverseBytes(magic);
    byte[] h = new byte[FILE_HEADER - 4];
    int n = in.read(h, 0, h.length);
    if (n < h.length) {
      throw PcapFormatException.truncated(0, "pcap file header", FILE_HEADER, 4 + n);
    }
    int major = PcapInput.u16(h, 0, bigEndian);
    int minor = PcapInput.u16(h, 2, bigEndian);
    if (major != 2) {
      throw PcapFormatException.unsupportedVersion(0, "pcap file header", major, minor);
    }
    // <magic><major><minor><thiszone><sigfigs><snaplen> <here> <linktype: low 16 bits>
    int linkType = PcapInput.i32(h, 16, bigEndian) & 0xFFFF;
    return new ClassicPcapSource(in, bigEndian, native32 == MAGIC_NANOS, linkType);
  }

  @Override
  public PcapPacket next() throws IOException {
    long at = in.offset();
    int n = in.read(record, 0, RECORD_HEADER);
    if (n == 0) {
      return null;
    }
    if (n < RECORD_HEADER) {
      throw PcapFormatException.truncated(at, "packet record header", RECORD_HEADER, n);
    }
    long seconds = PcapInput.u32(record, 0, bigEndian);
    long fraction = PcapInput.u32(record, 4, bigEndian);
    long captured = PcapInput.u32(record, 8, bigEndian);
    long original = PcapInput.u32(record, 12, bigEndian);
    if (captured > PcapReader.MAX_PACKET_LENGTH) {
      throw PcapFormatException.badLength(
          at, "packet record", captured, "at most " + PcapReader.MAX_PACKET_LENGTH);
    }
    byte[] data = in.readArray((int) captured);
    if (data.length < captured) {
      throw PcapFormatException.truncated(
          at, "packet record", RECORD_HEADER + captured, RECORD_HEADER + data.length);
    }
    long nanosOfSecond = nanos ? fraction : fraction * 1000;
    long timestamp = Timestamps.add(Timestamps.secondsToNanos(seconds), nanosOfSecond);
    return new PcapPacket(timestamp, linkType, 0, data, original, at);
  }
}
