package io.cqlrows.netty.request;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.SegmentToFrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request read back, independently of the encoders (section 4.1 of native_protocol_v4.spec and
 * v5.spec): the header fields and every field of the QUERY, PREPARE, EXECUTE or STARTUP body.
 * Absent optional fields are -1 or null. Test-only.
 *
 * @param version protocol version
 * @param headerFlags envelope header flags
 * @param streamId stream id
 * @param opcode message kind
 * @param query QUERY and PREPARE text
 * @param prepareFlags v5 PREPARE flags, else -1
 * @param id EXECUTE statement id (hex)
 * @param resultMetadataId EXECUTE result_metadata_id (hex): v5, or v4 with ScyllaDB's
 *     SCYLLA_USE_METADATA_ID
 * @param consistency QUERY/EXECUTE consistency code, else -1
 * @param flags QUERY/EXECUTE query flags, else -1
 * @param values the values as hex; {@code "NULL"} for -1 and {@code "UNSET"} for -2
 * @param pageSize result_page_size, else -1
 * @param pagingState paging state (hex), else null
 * @param serialConsistency serial consistency code, else -1
 * @param timestamp default timestamp, else null
 * @param options STARTUP options in wire order
 */
public record DecodedRequest(
    int version,
    int headerFlags,
    int streamId,
    Opcode opcode,
    String query,
    int prepareFlags,
    String id,
    String resultMetadataId,
    int consistency,
    int flags,
    List<String> values,
    int pageSize,
    String pagingState,
    int serialConsistency,
    Long timestamp,
    Map<String, String> options) {

  /** Reads a request frame of a connection without extensions. The frame is borrowed. */
  public static DecodedRequest decode(Frame frame) {
    return decode(frame, frame.version() >= 5);
  }

  /**
   * Reads a request frame. The frame is borrowed.
   *
   * @param metadataIds whether an EXECUTE carries a result_metadata_id (v5, or a ScyllaDB v4
   *     connection whose STARTUP named SCYLLA_USE_METADATA_ID)
   */
  public static DecodedRequest decode(Frame frame, boolean metadataIds) {
    Builder b = new Builder(frame);
    ByteBuf in = frame.body().duplicate();
    switch (frame.opcode()) {
      case STARTUP:
        b.options = stringMap(in);
        break;
      case QUERY:
        b.query = longString(in);
        b.parameters(in);
        break;
      case PREPARE:
        b.query = longString(in);
        if (frame.version() >= 5) {
          b.prepareFlags = in.readInt();
        }
        break;
      case EXECUTE:
        b.id = ByteBufUtil.hexDump(in.readSlice(in.readUnsignedShort()));
        if (metadataIds) {
          b.resultMetadataId = ByteBufUtil.hexDump(in.readSlice(in.readUnsignedShort()));
        }
        b.parameters(in);
        break;
      default:
        return b.build(); // OPTIONS, REGISTER, ...: header only
    }
    if (in.isReadable()) {
      throw new AssertionError(in.readableBytes() + " bytes left after " + frame.opcode());
    }
    return b.build();
  }

  /**
   * Decodes unframed envelopes (v4, or v5 before READY) with the frame decoder, as a server would:
   * the buffers are released, the frames read back and released.
   */
  public static List<DecodedRequest> decodeEnvelopes(Compression compression, ByteBuf... bufs) {
    return decodeWith(
        new EmbeddedChannel(new BytesToFrameDecoder(ParseLimits.defaults(), compression)), bufs);
  }

  /** Decodes v5 segments with the segment decoders. The buffers are released. */
  public static List<DecodedRequest> decodeSegments(SegmentFormat format, ByteBuf... bufs) {
    return decodeWith(
        new EmbeddedChannel(new BytesToSegmentDecoder(format, 0), new SegmentToFrameDecoder()),
        bufs);
  }

  private static List<DecodedRequest> decodeWith(EmbeddedChannel channel, ByteBuf... bufs) {
    for (ByteBuf buf : bufs) {
      channel.writeInbound(buf);
    }
    channel.checkException();
    List<DecodedRequest> out = new ArrayList<>();
    for (Object msg; (msg = channel.readInbound()) != null; ) {
      Frame frame = (Frame) msg;
      try {
        out.add(decode(frame));
      } finally {
        frame.release();
      }
    }
    if (channel.finish()) {
      throw new AssertionError("messages left in the channel");
    }
    return out;
  }

  private static String longString(ByteBuf in) {
    return in.readCharSequence(in.readInt(), StandardCharsets.UTF_8).toString();
  }

  private static String string(ByteBuf in) {
    return in.readCharSequence(in.readUnsignedShort(), StandardCharsets.UTF_8).toString();
  }

  private static Map<String, String> stringMap(ByteBuf in) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int n = in.readUnsignedShort(); n > 0; n--) {
      map.put(string(in), string(in));
    }
    return map;
  }

  private static String value(ByteBuf in) {
    int n = in.readInt();
    if (n == -1) {
      return "NULL";
    }
    if (n == -2) {
      return "UNSET";
    }
    return ByteBufUtil.hexDump(in.readSlice(n));
  }

  /** Mutable fields while reading. */
  private static final class Builder {
    final Frame frame;
    String query;
    int prepareFlags = -1;
    String id;
    String resultMetadataId;
    int consistency = -1;
    int flags = -1;
    List<String> values = List.of();
    int pageSize = -1;
    String pagingState;
    int serialConsistency = -1;
    Long timestamp;
    Map<String, String> options = Map.of();

    Builder(Frame frame) {
      this.frame = frame;
    }

    /** {@code <query_parameters>}: every flag this project writes. */
    void parameters(ByteBuf in) {
      consistency = in.readUnsignedShort();
      flags = frame.version() >= 5 ? in.readInt() : in.readUnsignedByte();
      if ((flags & 0x01) != 0) {
        List<String> list = new ArrayList<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
          list.add(value(in));
        }
        values = Collections.unmodifiableList(list);
      }
      if ((flags & 0x04) != 0) {
        pageSize = in.readInt();
      }
      if ((flags & 0x08) != 0) {
        pagingState = value(in);
      }
      if ((flags & 0x10) != 0) {
        serialConsistency = in.readUnsignedShort();
      }
      if ((flags & 0x20) != 0) {
        timestamp = in.readLong();
      }
    }

    DecodedRequest build() {
      return new DecodedRequest(
          frame.version(),
          frame.flags(),
          frame.streamId(),
          frame.opcode(),
          query,
          prepareFlags,
          id,
          resultMetadataId,
          consistency,
          flags,
          values,
          pageSize,
          pagingState,
          serialConsistency,
          timestamp,
          options);
    }
  }
}
