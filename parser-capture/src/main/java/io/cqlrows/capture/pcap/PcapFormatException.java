package io.cqlrows.capture.pcap;

import java.io.IOException;

/**
 * A capture file that cannot be read further: bad magic, a lying length, an impossible field, or
 * input that ends inside a header or a packet. It names the reason and the byte offset (from the
 * start of the file) of the structure being read.
 *
 * <p>Design note: why a checked {@link IOException} and not a runtime exception. The reader's
 * callers already handle {@code IOException} from the underlying stream, and a malformed file is a
 * property of the input, not a programming error; the JDK's {@code ZipException} and {@code
 * CharacterCodingException} make the same choice. One {@code catch (IOException e)} covers both.
 *
 * <p>Immutable.
 */
public final class PcapFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  /** What was wrong. */
  public enum Reason {
    /** The file starts with neither a pcap magic number nor a pcapng section header. */
    BAD_MAGIC,
    /** A format version this reader does not know (pcap major 2 and pcapng major 1 are read). */
    UNSUPPORTED_VERSION,
    /** The input ends inside a file header, record header, block or packet. */
    TRUNCATED,
    /** A record or block length that cannot be true (too small, unaligned, over the limit). */
    BAD_LENGTH,
    /** Another field with an impossible value (an interface id, an option, a resolution). */
    BAD_FIELD,
    /** The file is neither a pcap or pcapng file nor a CQL byte stream. */
    NOT_A_CAPTURE
  }

  /** What was wrong. */
  private final Reason reason;

  /** Byte offset in the file of the header, record or block being read. */
  private final long offset;

  /** The length the structure declares or needs, or -1. */
  private final long length;

  private PcapFormatException(Reason reason, long offset, String what, String detail) {
    this(reason, offset, -1, what, detail);
  }

  private PcapFormatException(Reason reason, long offset, long length, String what, String detail) {
    super(what + (reason == Reason.NOT_A_CAPTURE ? "" : " at offset " + offset) + ": " + detail);
    this.reason = reason;
    this.offset = offset;
    this.length = length;
  }

  /**
   * The length in bytes that the damaged structure declares (a block or record length that the file
   * cannot hold, or that cannot be true), or -1 when the damage is not a length.
   */
  public long length() {
    return length;
  }

  /** What was wrong. */
  public Reason reason() {
    return reason;
  }

  /** Byte offset in the file of the header, record or block being read. */
  public long offset() {
    return offset;
  }

  static PcapFormatException truncated(long offset, String what, long need, long have) {
    return new PcapFormatException(
        Reason.TRUNCATED,
        offset,
        need,
        "truncated " + what,
        "it needs " + need + " bytes, the file has " + have);
  }

  static PcapFormatException badMagic(long offset, String what, int magic, String expected) {
    return new PcapFormatException(
        Reason.BAD_MAGIC,
        offset,
        "bad " + what,
        String.format("0x%08x (expected: %s)", magic, expected));
  }

  static PcapFormatException unsupportedVersion(long offset, String what, int major, int minor) {
    return new PcapFormatException(
        Reason.UNSUPPORTED_VERSION,
        offset,
        "unsupported " + what,
        "version " + major + "." + minor);
  }

  static PcapFormatException badLength(long offset, String what, long value, String expected) {
    return new PcapFormatException(
        Reason.BAD_LENGTH,
        offset,
        value,
        "bad length of " + what,
        value + " (expected: " + expected + ")");
  }

  /**
   * A file that is neither a pcap or pcapng file nor a CQL byte stream.
   *
   * @param length the file's length in bytes
   */
  public static PcapFormatException notACapture(long length) {
    return new PcapFormatException(
        Reason.NOT_A_CAPTURE,
        0,
        "not a pcap/pcapng file and not a CQL byte stream",
        length == 0
            ? "the file is empty"
            : "its "
                + Math.min(length, 9)
                + " first bytes are neither a capture's magic number"
                + " nor a CQL response header");
  }

  static PcapFormatException badField(long offset, String what, String detail) {
    return new PcapFormatException(Reason.BAD_FIELD, offset, "bad " + what, detail);
  }
}
