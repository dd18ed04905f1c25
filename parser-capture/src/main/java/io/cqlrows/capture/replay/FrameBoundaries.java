package io.cqlrows.capture.replay;

import io.netty.buffer.ByteBuf;

/**
 * Follows where the frames of one direction's v3/v4 byte stream start, by their headers' lengths
 * alone (native_protocol_v4.spec section 2: a 9-byte header whose last 4 bytes are the body's
 * length), so that after a gap inside a frame decoding can resume exactly at the next one, without
 * a search. Stops following (the next start is unknown) at a header of another version (v5 frames
 * give way to segments) or when told to. Offsets are the direction's stream offsets. Not
 * thread-safe.
 */
final class FrameBoundaries {
  private static final int HEADER = 9;

  /** The stream offset of the next byte {@link #see} expects. */
  private long position;

  /** The stream offset of the next frame's header, or -1 when unknown. */
  private long next = -1;

  private final byte[] header = new byte[HEADER];

  /** Bytes of the next header seen so far. */
  private int filled;

  /**
   * The bytes seen next start at stream offset {@code offset}.
   *
   * @param frameStart whether a frame starts there (else the next start is unknown)
   */
  void startAt(long offset, boolean frameStart) {
    position = offset;
    next = frameStart ? offset : -1;
    filled = 0;
  }

  /** The next frame's start is unknown from now on (the decoding stopped). */
  void lose() {
    next = -1;
  }

  /** The next bytes of the stream, from the buffer's reader index (whose indices are not moved). */
  void see(ByteBuf b) {
    int n = b.readableBytes();
    long end = position + n;
    while (next >= 0 && next + filled < end) {
      long at = next + filled;
      if (at < position) {
        next = -1; // bytes before these were not seen
        break;
      }
      int take = (int) Math.min(HEADER - filled, end - at);
      b.getBytes(b.readerIndex() + (int) (at - position), header, filled, take);
      filled += take;
      if (filled == HEADER) {
        int version = header[0] & 0x7F;
        long length =
            (header[5] & 0xFFL) << 24
                | (header[6] & 0xFFL) << 16
                | (header[7] & 0xFFL) << 8
                | (header[8] & 0xFFL);
        if (version < 3 || version > 4 || length > Integer.MAX_VALUE) {
          next = -1; // a v5 stream switches to segments; a negative length is no frame
          break;
        }
        next += HEADER + length;
        filled = 0;
      }
    }
    position = end;
  }

  /** {@code n} bytes of the stream are passed over without being seen, as when skipped. */
  void pass(long n) {
    position += n;
  }

  /**
   * {@code length} bytes are missing from stream offset {@code offset} on.
   *
   * @return how many of the bytes after the gap to skip to reach the next frame's header, or -1
   *     when that is unknown (the header is in the gap, or was not followed up to the gap)
   */
  long gap(long offset, long length) {
    long resume = offset + length;
    long skip = next >= 0 && position == offset && next >= resume ? next - resume : -1;
    position = resume;
    if (skip < 0) {
      next = -1;
    }
    filled = 0;
    return skip;
  }
}
