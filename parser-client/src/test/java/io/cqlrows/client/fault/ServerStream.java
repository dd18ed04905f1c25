package io.cqlrows.client.fault;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-to-client byte stream of one {@link FaultProxy} connection: follows its framing (v3/v4
 * frames; v5 unframed envelopes up to READY or AUTHENTICATE, then segments, whose format the
 * client's STARTUP tells, or else the first header's CRC24), counts the responses, and applies an
 * armed {@link Fault} to its target. Bytes it cannot follow (a segment header whose CRC24 is wrong)
 * are passed on as they are, and no fault applies from there on.
 *
 * <p>Ownership: {@link #read} takes ownership of its buffer; what it passes to {@link
 * Output#forward} belongs to the output. v3/v4 frame bodies are streamed through; v5 segments are
 * passed on whole (at most 8 + 131071 + 4 bytes held). Not thread-safe: one event loop.
 */
final class ServerStream {
  /** Where the stream's bytes go. */
  interface Output {
    /** Passes bytes on to the client; takes ownership. */
    void forward(ByteBuf bytes);

    /** The fault's target was cut: {@link Fault.Kind#CUT}, RESET or STALL now. */
    void terminate(Fault.Kind kind);

    /** From now on, bytes go to the client by drops ({@link Fault.Kind#DRIP}). */
    void startDrip(Fault fault);

    int connection();
  }

  private static final int HEADER = 9;

  private final ByteBufAllocator alloc;
  private final Output out;
  private final AtomicLong responsesTotal;
  private final ByteBuf header;
  private ByteBuf segmentBytes;
  private Boolean lz4;
  private boolean segments;
  private boolean raw;
  private boolean stopped;
  private boolean released;
  private long responses;
  private Fault armed;
  private long target;

  // the frame (v3/v4, or v5 before the switch) being read
  private boolean inBody;
  private long bodyRemaining;
  private long bodyOffset;
  private boolean switchAfterFrame;
  private boolean dropFrame;
  private long cutBodyAt = -1;
  private Fault.Kind cutKind;
  private long flipAt = -1;

  // v5: the envelope sliced across segments being read
  private long sliceRemaining;
  private boolean dropSlices;

  ServerStream(ByteBufAllocator alloc, Output out, AtomicLong responsesTotal) {
    this.alloc = alloc;
    this.out = out;
    this.responsesTotal = responsesTotal;
    this.header = alloc.heapBuffer(HEADER, HEADER);
  }

  /** The segment format from the client's STARTUP: LZ4 when it asked for lz4. */
  void lz4(boolean value) {
    if (lz4 == null) {
      lz4 = value;
    }
  }

  /** Responses whose first byte was seen. */
  long responses() {
    return responses;
  }

  /** Arms {@code fault} on the response after the next {@code afterResponses} ones. */
  void arm(Fault fault) {
    armed = fault;
    target = responses + fault.afterResponses();
  }

  void disarm() {
    armed = null;
  }

  /** Takes ownership of {@code in}; forwards, alters or holds its bytes. */
  void read(ByteBuf in) {
    try {
      int guard = in.readableBytes() + 2; // every pass consumes a byte or returns
      while (in.isReadable() && !stopped && !released && guard-- > 0) {
        if (raw) {
          out.forward(in.readRetainedSlice(in.readableBytes()));
        } else if (segments) {
          readSegments(in);
        } else {
          readFrame(in);
        }
      }
    } finally {
      in.release();
    }
  }

  /** Frees what is held; later reads are dropped. Idempotent. */
  void release() {
    if (!released) {
      released = true;
      header.release();
      if (segmentBytes != null) {
        segmentBytes.release();
        segmentBytes = null;
      }
    }
  }

  /** Returns the armed fault if it fires on response {@code index}, disarming it. */
  private Fault take(long index, int opcode, int stream) {
    Fault fault = armed;
    if (fault == null || index != target) {
      return null;
    }
    armed = null;
    return fault.fire(new Fault.Fired(out.connection(), index, opcode, stream)) ? fault : null;
  }

  private void terminate(Fault.Kind kind) {
    stopped = true;
    out.terminate(kind);
  }

  private void readFrame(ByteBuf in) {
    if (!inBody) {
      header.writeBytes(in, Math.min(HEADER - header.readableBytes(), in.readableBytes()));
      if (header.readableBytes() == HEADER) {
        startFrame();
      }
      return;
    }
    int n = (int) Math.min(bodyRemaining, in.readableBytes());
    ByteBuf part = in.readRetainedSlice(n);
    long offset = bodyOffset;
    bodyOffset += n;
    bodyRemaining -= n;
    body(part, offset);
    if (bodyRemaining == 0 && !stopped) {
      endFrame();
    }
  }

  private void startFrame() {
    int version = header.getUnsignedByte(0) & 0x7F;
    int opcode = header.getUnsignedByte(4);
    long length = header.getUnsignedInt(5);
    long index = responses++;
    responsesTotal.incrementAndGet();
    inBody = true;
    bodyRemaining = length;
    bodyOffset = 0;
    switchAfterFrame = version >= 5 && (opcode == 0x02 || opcode == 0x03);
    dropFrame = false;
    cutBodyAt = -1;
    flipAt = -1;
    Fault fault = take(index, opcode, header.getShort(2));
    if (fault != null) {
      switch (fault.kind()) {
        case CUT, RESET, STALL -> {
          if (length == 0) {
            out.forward(alloc.buffer(4).writeBytes(header, 0, 4));
            header.clear();
            terminate(fault.kind());
            return;
          }
          cutBodyAt = length / 2;
          cutKind = fault.kind();
        }
        case DROP -> dropFrame = true;
        case OVERSIZE -> header.setInt(5, Fault.OVERSIZE_LENGTH);
        case BITFLIP -> {
          if (length == 0) {
            header.setByte(1, header.getByte(1) ^ 0x01);
          } else {
            flipAt = length / 2;
          }
        }
        case DRIP -> out.startDrip(fault);
        default -> throw new AssertionError(fault.kind());
      }
    }
    if (!dropFrame) {
      out.forward(alloc.buffer(HEADER).writeBytes(header, 0, HEADER));
    }
    header.clear();
    if (cutBodyAt == 0) {
      terminate(cutKind);
    } else if (length == 0) {
      endFrame();
    }
  }

  private void body(ByteBuf part, long offset) {
    if (dropFrame) {
      part.release();
      return;
    }
    int n = part.readableBytes();
    if (cutBodyAt >= 0 && cutBodyAt - offset <= n) {
      int keep = (int) (cutBodyAt - offset);
      if (keep > 0) {
        out.forward(part.retainedSlice(part.readerIndex(), keep));
      }
      part.release();
      terminate(cutKind);
      return;
    }
    if (flipAt >= offset && flipAt < offset + n) {
      ByteBuf copy = alloc.buffer(n).writeBytes(part);
      part.release();
      int at = (int) (flipAt - offset);
      copy.setByte(at, copy.getByte(at) ^ 0x10);
      part = copy;
    }
    out.forward(part);
  }

  private void endFrame() {
    inBody = false;
    if (switchAfterFrame) {
      segments = true;
    }
  }

  private void readSegments(ByteBuf in) {
    if (segmentBytes == null) {
      segmentBytes = alloc.heapBuffer();
    }
    segmentBytes.writeBytes(in);
    int guard = segmentBytes.readableBytes() + 1;
    while (!stopped && guard-- > 0) {
      if (lz4 == null) {
        if (segmentBytes.readableBytes() < 8) {
          break;
        }
        int r = segmentBytes.readerIndex();
        if (Segments.crc24(segmentBytes, r, 3) == segmentBytes.getUnsignedMediumLE(r + 3)) {
          lz4 = false;
        } else if (Segments.crc24(segmentBytes, r, 5) == segmentBytes.getUnsignedMediumLE(r + 5)) {
          lz4 = true;
        } else {
          passRaw();
          return;
        }
      }
      int headerLength = Segments.headerLength(lz4);
      if (segmentBytes.readableBytes() < headerLength) {
        break;
      }
      Segments.Header h = Segments.header(segmentBytes, segmentBytes.readerIndex(), lz4);
      if (!h.crcMatches()) {
        passRaw();
        return;
      }
      int total = headerLength + h.payloadLength() + 4;
      if (segmentBytes.readableBytes() < total) {
        break;
      }
      ByteBuf segment = alloc.buffer(total).writeBytes(segmentBytes, total);
      segment(segment, h, headerLength);
    }
    segmentBytes.discardSomeReadBytes();
  }

  private void passRaw() {
    raw = true;
    out.forward(segmentBytes.readRetainedSlice(segmentBytes.readableBytes()));
    segmentBytes.release();
    segmentBytes = null;
  }

  /** One whole segment, owned. */
  private void segment(ByteBuf segment, Segments.Header h, int headerLength) {
    byte[] wire = new byte[h.payloadLength()];
    segment.getBytes(headerLength, wire);
    byte[] plain;
    try {
      plain = Segments.plain(wire, h.uncompressedLength());
    } catch (IllegalArgumentException e) {
      out.forward(segment);
      return;
    }
    List<long[]> envelopes = new ArrayList<>(); // {start, total length} in the plain payload
    boolean continuation = false;
    if (h.selfContained()) {
      for (int p = 0; p + HEADER <= plain.length && envelopes.size() <= plain.length; ) {
        long total = HEADER + (getInt(plain, p + 5) & 0xFFFFFFFFL);
        envelopes.add(new long[] {p, total});
        p += (int) Math.min(total, plain.length - p);
      }
    } else if (sliceRemaining == 0) {
      if (plain.length >= HEADER) {
        long total = HEADER + (getInt(plain, 5) & 0xFFFFFFFFL);
        envelopes.add(new long[] {0, total});
        sliceRemaining = Math.max(0, total - plain.length);
      }
    } else {
      continuation = true;
      sliceRemaining = Math.max(0, sliceRemaining - plain.length);
    }
    long first = responses;
    responses += envelopes.size();
    responsesTotal.addAndGet(envelopes.size());
    if (continuation && dropSlices) {
      dropSlices = sliceRemaining > 0;
      segment.release();
      return;
    }
    Fault fault = null;
    long[] hit = null;
    for (int i = 0; i < envelopes.size() && fault == null; i++) {
      hit = envelopes.get(i);
      int start = (int) hit[0];
      fault =
          take(
              first + i,
              plain[start + 4] & 0xFF,
              (short) ((plain[start + 2] << 8) | (plain[start + 3] & 0xFF)));
    }
    if (fault == null) {
      out.forward(segment);
      return;
    }
    int start = (int) hit[0];
    switch (fault.kind()) {
      case CUT, RESET, STALL -> {
        // in the envelope when its bytes are the payload's and it ends in this segment, else
        // in the middle of the payload (LZ4 block, or the first slice of a sliced envelope)
        long body = hit[1] - HEADER;
        long at = start + (body == 0 ? 4 : HEADER + body / 2);
        int cut =
            h.uncompressedLength() == 0 && at < h.payloadLength()
                ? (int) at
                : h.payloadLength() / 2;
        out.forward(segment.retainedSlice(0, headerLength + cut));
        segment.release();
        terminate(fault.kind());
      }
      case DROP -> {
        segment.release();
        if (!h.selfContained()) {
          dropSlices = sliceRemaining > 0;
          return;
        }
        int end = (int) Math.min(plain.length, start + hit[1]);
        byte[] rest = new byte[plain.length - (end - start)];
        System.arraycopy(plain, 0, rest, 0, start);
        System.arraycopy(plain, end, rest, start, plain.length - end);
        if (rest.length > 0) {
          out.forward(Segments.encode(alloc, rest, true, lz4, false));
        }
      }
      case OVERSIZE -> {
        segment.release();
        byte[] changed = plain.clone();
        putInt(changed, start + 5, Fault.OVERSIZE_LENGTH);
        out.forward(Segments.encode(alloc, changed, h.selfContained(), lz4, false));
      }
      case BITFLIP -> {
        int at = headerLength + h.payloadLength() / 2;
        segment.setByte(at, segment.getByte(at) ^ 0x10);
        out.forward(segment);
      }
      case DRIP -> {
        out.startDrip(fault);
        out.forward(segment);
      }
      default -> throw new AssertionError(fault.kind());
    }
  }

  private static int getInt(byte[] b, int at) {
    return ((b[at] & 0xFF) << 24)
        | ((b[at + 1] & 0xFF) << 16)
        | ((b[at + 2] & 0xFF) << 8)
        | (b[at + 3] & 0xFF);
  }

  private static void putInt(byte[] b, int at, int value) {
    b[at] = (byte) (value >>> 24);
    b[at + 1] = (byte) (value >>> 16);
    b[at + 2] = (byte) (value >>> 8);
    b[at + 3] = (byte) value;
  }
}
