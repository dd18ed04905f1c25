package io.cqlrows.capture.pcap;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads pcapng files: Section Header Blocks in either byte order, Interface Description Blocks
 * (link type, snapshot length, {@code if_tsresol}, {@code if_tsoffset}), Enhanced and Simple Packet
 * Blocks; every other block type is skipped without being buffered. A new section forgets the
 * interfaces of the previous one.
 *
 * <p>Every block is {@code <type><length> body <length>}; the two lengths must agree, be a multiple
 * of 4 and at least the block's fixed part.
 *
 * <p>Not thread-safe.
 */
final class PcapngSource implements PacketSource {
  static final int SECTION_HEADER = 0x0A0D0D0A;
  private static final int INTERFACE_DESCRIPTION = 1;
  private static final int SIMPLE_PACKET = 3;
  private static final int ENHANCED_PACKET = 6;
  private static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;

  /** Blocks read whole into memory (not packet data) may be at most this long. */
  private static final int MAX_METADATA_BLOCK = 1 << 20;

  private static final int OPTION_TSRESOL = 9;
  private static final int OPTION_TSOFFSET = 14;

  /** One interface of the current section. */
  private record Interface(int linkType, long snapLength, int tsresol, long offsetSeconds) {}

  private final PcapInput in;

  /** Byte order of the current section. */
  private boolean bigEndian;

  /** Interfaces of the current section, by id. */
  private final List<Interface> interfaces = new ArrayList<>();

  /** Reused header and fixed parts of blocks. */
  private final byte[] scratch = new byte[24];

  private PcapngSource(PcapInput in) {
    this.in = in;
  }

  /** Reads the first Section Header Block, whose block type has been consumed. */
  static PcapngSource open(PcapInput in) throws IOException {
    PcapngSource source = new PcapngSource(in);
    source.readSectionHeader(0);
    return source;
  }

  @Override
  public PcapPacket next() throws IOException {
    for (; ; ) {
      long at = in.offset();
      int n = in.read(scratch, 0, 4);
      if (n == 0) {
        return null;
      }
      if (n < 4) {
        throw PcapFormatException.truncated(at, "block header", 8, n);
      }
      int type = PcapInput.i32(scratch, 0, bigEndian);
      if (type == SECTION_HEADER) {
        readSectionHeader(at);
        continue;
      }
      long length = readLength(at, type);
      PcapPacket packet = readBlock(at, type, length);
      if (packet != null) {
        return packet;
      }
    }
  }

  /** Reads one non-section block of the given length; a packet or null for other blocks. */
  private PcapPacket readBlock(long at, int type, long length) throws IOException {
    switch (type) {
      case INTERFACE_DESCRIPTION:
        readInterface(at, length);
        return null;
      case ENHANCED_PACKET:
        return readEnhancedPacket(at, length);
      case SIMPLE_PACKET:
        return readSimplePacket(at, length);
      default:
        check(at, "block", length, length - 4, 8 + in.skip(length - 12));
        readTrailer(at, length, "block");
        return null;
    }
  }

  // <0x0A0D0D0A> <here> <length><byte-order magic><major><minor><section length> options <length>
  private void readSectionHeader(long at) throws IOException {
    int n = in.read(scratch, 4, 20);
    check(at, "section header block", 24, 24, 4 + n);
    int magic = PcapInput.i32(scratch, 8, true);
    if (magic != BYTE_ORDER_MAGIC && Integer.reverseBytes(magic) != BYTE_ORDER_MAGIC) {
      throw PcapFormatException.badMagic(
          at + 8, "pcapng byte-order magic", magic, "1a2b3c4d in either byte order");
    }
    bigEndian = magic == BYTE_ORDER_MAGIC;
    long length = checkLength(at, "section header block", PcapInput.u32(scratch, 4, bigEndian), 28);
    int major = PcapInput.u16(scratch, 12, bigEndian);
    if (major != 1) {
      throw PcapFormatException.unsupportedVersion(
          at, "pcapng section", major, PcapInput.u16(scratch, 14, bigEndian));
    }
    check(at, "section header block", length, length - 4, 24 + in.skip(length - 28));
    readTrailer(at, length, "section header block");
    interfaces.clear();
  }

  // <1><length> <here> <link type:2><reserved:2><snap length:4> options <length>
  private void readInterface(long at, long length) throws IOException {
    checkLength(at, "interface description block", length, 20);
    byte[] body = readMetadataBody(at, length, "interface description block");
    int linkType = PcapInput.u16(body, 0, bigEndian);
    long snapLength = PcapInput.u32(body, 4, bigEndian);
    int tsresol = 6;
    long offsetSeconds = 0;
    int pos = 8;
    while (pos + 4 <= body.length) {
      int code = PcapInput.u16(body, pos, bigEndian);
      int len = PcapInput.u16(body, pos + 2, bigEndian);
      if (code == 0) {
        break;
      }
      if (pos + 4 + len > body.length) {
        throw PcapFormatException.badField(
            at,
            "interface description block option " + code,
            "length " + len + " runs past the block (" + (body.length - pos - 4) + " bytes left)");
      }
      if (code == OPTION_TSRESOL && len >= 1) {
        tsresol = checkResolution(at, body[pos + 4] & 0xFF);
      } else if (code == OPTION_TSOFFSET && len >= 8) {
        offsetSeconds = PcapInput.i64(body, pos + 4, bigEndian);
      }
      pos += 4 + ((len + 3) & ~3);
    }
    readTrailer(at, length, "interface description block");
    interfaces.add(new Interface(linkType, snapLength, tsresol, offsetSeconds));
  }

  // <6><length> <here> <interface id><ts high><ts low><captured><original> data options <length>
  private PcapPacket readEnhancedPacket(long at, long length) throws IOException {
    checkLength(at, "enhanced packet block", length, 32);
    int n = in.read(scratch, 0, 20);
    check(at, "enhanced packet block", length, 28, 8 + n);
    long id = PcapInput.u32(scratch, 0, bigEndian);
    Interface iface = interfaceOf(at, id, "enhanced");
    long ticks =
        (PcapInput.u32(scratch, 4, bigEndian) << 32) | PcapInput.u32(scratch, 8, bigEndian);
    long captured = PcapInput.u32(scratch, 12, bigEndian);
    long original = PcapInput.u32(scratch, 16, bigEndian);
    if (captured > length - 32) {
      throw PcapFormatException.badLength(
          at,
          "enhanced packet block data",
          captured,
          "at most the block length " + length + " - 32");
    }
    byte[] data = readData(at, length, 28, captured, "enhanced packet block");
    long nanos =
        Timestamps.add(
            Timestamps.ticksToNanos(ticks, iface.tsresol()),
            Timestamps.secondsToNanos(iface.offsetSeconds()));
    return new PcapPacket(nanos, iface.linkType(), (int) id, data, original, at);
  }

  // <3><length> <here> <original length> data <length>
  private PcapPacket readSimplePacket(long at, long length) throws IOException {
    checkLength(at, "simple packet block", length, 16);
    int n = in.read(scratch, 0, 4);
    check(at, "simple packet block", length, 12, 8 + n);
    Interface iface = interfaceOf(at, 0, "simple");
    long original = PcapInput.u32(scratch, 0, bigEndian);
    long captured = Math.min(original, length - 16);
    if (iface.snapLength() > 0) {
      captured = Math.min(captured, iface.snapLength());
    }
    byte[] data = readData(at, length, 12, captured, "simple packet block");
    return new PcapPacket(0, iface.linkType(), 0, data, original, at);
  }

  /**
   * Reads {@code captured} bytes of packet data, skips the rest of the block and checks its
   * trailer. {@code consumed} bytes of the block have been read.
   */
  private byte[] readData(long at, long length, int consumed, long captured, String what)
      throws IOException {
    if (captured > PcapReader.MAX_PACKET_LENGTH) {
      throw PcapFormatException.badLength(
          at, what + " data", captured, "at most " + PcapReader.MAX_PACKET_LENGTH);
    }
    byte[] data = in.readArray((int) captured);
    check(at, what, length, consumed + captured, consumed + data.length);
    long rest = length - 4 - consumed - captured;
    check(at, what, length, length - 4, consumed + captured + in.skip(rest));
    readTrailer(at, length, what);
    return data;
  }

  private byte[] readMetadataBody(long at, long length, String what) throws IOException {
    if (length > MAX_METADATA_BLOCK) {
      throw PcapFormatException.badLength(at, what, length, "at most " + MAX_METADATA_BLOCK);
    }
    byte[] body = in.readArray((int) length - 12);
    check(at, what, length, length - 4, 8 + body.length);
    return body;
  }

  /** Reads the block length after the type and checks it. */
  private long readLength(long at, int type) throws IOException {
    int n = in.read(scratch, 4, 4);
    check(at, "block header", 8, 8, 4 + n);
    return checkLength(at, "block of type " + type, PcapInput.u32(scratch, 4, bigEndian), 12);
  }

  private long checkLength(long at, String what, long length, int minimum)
      throws PcapFormatException {
    if (length < minimum || (length & 3) != 0) {
      throw PcapFormatException.badLength(at, what, length, "a multiple of 4, at least " + minimum);
    }
    return length;
  }

  private void readTrailer(long at, long length, String what) throws IOException {
    int n = in.read(scratch, 0, 4);
    check(at, what, length, length, length - 4 + n);
    long trailer = PcapInput.u32(scratch, 0, bigEndian);
    if (trailer != length) {
      throw PcapFormatException.badLength(
          at, what + " (trailing length " + trailer + ")", length, "both lengths equal");
    }
  }

  private Interface interfaceOf(long at, long id, String block) throws PcapFormatException {
    if (id >= interfaces.size()) {
      throw PcapFormatException.badField(
          at,
          "interface id of " + block + " packet block",
          id + " (expected: below " + interfaces.size() + ", the interfaces described so far)");
    }
    return interfaces.get((int) id);
  }

  private static int checkResolution(long at, int tsresol) throws PcapFormatException {
    if (!Timestamps.isValidResolution(tsresol)) {
      throw PcapFormatException.badField(
          at,
          "if_tsresol",
          String.format("0x%02x (expected: 10^-n with n <= 18, or 2^-n with n <= 62)", tsresol));
    }
    return tsresol;
  }

  /**
   * Throws TRUNCATED if the input ended early: {@code got} bytes of the structure at {@code at}
   * were read where {@code wanted} were due by now; it is {@code total} bytes long.
   */
  private static void check(long at, String what, long total, long wanted, long got)
      throws PcapFormatException {
    if (got < wanted) {
      throw PcapFormatException.truncated(at, what, total, got);
    }
  }
}
