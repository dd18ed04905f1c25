package io.cqlrows.bench.rows;

import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.Compressors;
import io.cqlrows.netty.internal.SegmentEncoder;
import io.cqlrows.netty.internal.SegmentFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A ROWS page as a server sends it: the RESULT envelope (response bit set, stream {@link
 * #STREAM_ID}) as a v4 frame, uncompressed or with an LZ4 body ({@link Compressors#lz4Body}, as
 * Cassandra compresses every v4 body once LZ4 is negotiated), or as v5 segments written by the
 * project's {@link SegmentEncoder} (an envelope longer than {@code
 * SegmentWriter.MAX_PAYLOAD_LENGTH} is cut into non-self-contained segments; an LZ4 segment payload
 * that does not shrink is stored with uncompressed length 0, as Cassandra's {@code FrameEncoderLZ4}
 * does).
 */
public final class ServerWire {
  /** The stream id of every response written here. */
  static final int STREAM_ID = 1;

  private static final int HEADER_LENGTH = 9;

  private ServerWire() {}

  /** How the page travels. */
  public enum Encoding {
    /** A v4 frame, uncompressed. */
    V4(4, false),
    /** A v4 frame with flag 0x01: an LZ4 body (big-endian uncompressed length, raw block). */
    V4_LZ4(4, true),
    /** v5 segments with CRC24/CRC32, uncompressed. */
    V5(5, false),
    /** v5 LZ4 segments. */
    V5_LZ4(5, true);

    final int version;
    final boolean lz4;

    Encoding(int version, boolean lz4) {
      this.version = version;
      this.lz4 = lz4;
    }

    SegmentFormat segmentFormat() {
      return lz4 ? SegmentFormat.LZ4 : SegmentFormat.UNCOMPRESSED;
    }
  }

  /** The bytes a client reads for {@code page} sent with {@code encoding}. */
  static byte[] encode(RowsShape.Page page, Encoding encoding) {
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    if (encoding.version == 4) {
      ByteBuf plain = Unpooled.wrappedBuffer(page.bytes);
      ByteBuf body = encoding.lz4 ? Compressors.lz4Body(alloc, plain) : plain.retain();
      try {
        return envelope(4, encoding.lz4 ? Frame.FLAG_COMPRESSION : 0, body);
      } finally {
        body.release();
        plain.release();
      }
    }
    ByteBuf envelope = Unpooled.wrappedBuffer(envelope(5, 0, page.bytes));
    EmbeddedChannel server = new EmbeddedChannel(new SegmentEncoder(encoding.segmentFormat()));
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    try {
      server.writeOutbound(envelope); // ownership passes to the encoder
      for (ByteBuf segment; (segment = server.readOutbound()) != null; ) {
        try {
          wire.writeBytes(ByteBufUtil.getBytes(segment));
        } finally {
          segment.release();
        }
      }
    } finally {
      server.finishAndReleaseAll();
    }
    return wire.toByteArray();
  }

  /** One response envelope: the 9-byte header, then the body. */
  static byte[] envelope(int version, int flags, byte[] body) {
    return envelope(version, flags, Unpooled.wrappedBuffer(body));
  }

  /** One response envelope: the 9-byte header, then the body. Borrowed body. */
  private static byte[] envelope(int version, int flags, ByteBuf body) {
    ByteBuf out = Unpooled.buffer(HEADER_LENGTH + body.readableBytes());
    try {
      out.writeByte(0x80 | version)
          .writeByte(flags)
          .writeShort(STREAM_ID)
          .writeByte(Opcode.RESULT.code())
          .writeInt(body.readableBytes())
          .writeBytes(body, body.readerIndex(), body.readableBytes());
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
    }
  }

  /**
   * The LZ4 blocks a client decompresses for this wire: for {@link Encoding#V4_LZ4} the one body
   * (with its 4-byte length, as {@code Decompressors.lz4Body} reads it); for {@link
   * Encoding#V5_LZ4} the payload of each segment with a non-zero uncompressed length (stored
   * segments are not decompressed).
   */
  static List<Block> lz4Blocks(byte[] wire, Encoding encoding) {
    List<Block> blocks = new ArrayList<>();
    ByteBuf in = Unpooled.wrappedBuffer(wire);
    if (encoding == Encoding.V4_LZ4) {
      int bodyLength = in.getInt(5);
      blocks.add(
          new Block(
              ByteBufUtil.getBytes(in, HEADER_LENGTH, bodyLength),
              in.getInt(HEADER_LENGTH),
              HEADER_LENGTH));
      return blocks;
    }
    if (encoding != Encoding.V5_LZ4) {
      throw new IllegalArgumentException(encoding + " (expected: V4_LZ4 or V5_LZ4)");
    }
    int headerLength = SegmentFormat.LZ4.headerLength();
    int envelopeOffset = 0;
    for (int at = 0; at < wire.length; ) {
      long word = in.getUnsignedIntLE(at) | ((long) in.getUnsignedByte(at + 4) << 32);
      int onWire = (int) (word & 0x1FFFF);
      int uncompressed = (int) ((word >>> 17) & 0x1FFFF);
      if (uncompressed != 0) {
        blocks.add(
            new Block(
                ByteBufUtil.getBytes(in, at + headerLength, onWire), uncompressed, envelopeOffset));
      }
      envelopeOffset += uncompressed != 0 ? uncompressed : onWire;
      at += headerLength + onWire + 4;
    }
    return blocks;
  }

  /** The number of v5 segments in {@code wire} and how many carry an LZ4 block. */
  static int[] segmentCounts(byte[] wire, SegmentFormat format) {
    ByteBuf in = Unpooled.wrappedBuffer(wire);
    int headerLength = format.headerLength();
    int segments = 0;
    int compressed = 0;
    for (int at = 0; at < wire.length; segments++) {
      long word =
          headerLength == 6
              ? in.getUnsignedMediumLE(at)
              : in.getUnsignedIntLE(at) | ((long) in.getUnsignedByte(at + 4) << 32);
      if (headerLength == 8 && ((word >>> 17) & 0x1FFFF) != 0) {
        compressed++;
      }
      at += headerLength + (int) (word & 0x1FFFF) + 4;
    }
    return new int[] {segments, compressed};
  }

  /**
   * One LZ4 block, the length it decompresses to, and where its bytes start in the envelope (header
   * included: v4's body starts at 9).
   */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  record Block(byte[] bytes, int uncompressedLength, int envelopeOffset) {}
}
