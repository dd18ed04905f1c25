package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.SegmentBuilder;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsResponse;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A driver's view of the whole stack on a v5 connection with LZ4: bytes in, the switch to segments
 * on READY, two requests in flight, one response with a broken cell. That stream fails with the
 * typed error naming row and column; the other completes; the channel goes on.
 */
class DriverPipelineTest {

  /** Stands in for a driver: records READY (the pipeline switched to segments) and the rest. */
  private static final class Driver extends ChannelInboundHandlerAdapter {
    final List<Object> received = new ArrayList<>();
    Throwable error;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Frame f && f.opcode() == Opcode.READY) {
        f.release();
        received.add("READY"); // handed on before what follows it, already in segments
        return;
      }
      received.add(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      error = cause;
    }
  }

  /** A v5 RESULT envelope with one ROWS result of columns (id int, v int). */
  private static byte[] rowsEnvelope(int stream, CqlBytes cells) {
    CqlBytes body =
        CqlBytes.create()
            .int32(2)
            .int32(0x0001)
            .int32(2)
            .string("ks")
            .string("t")
            .columnSpec("id", 0x0009)
            .columnSpec("v", 0x0009)
            .int32(1)
            .hex(cells.toHex());
    byte[] b = body.toArray();
    return CqlBytes.create()
        .int8(0x85)
        .int8(0)
        .int16(stream)
        .int8(0x08)
        .int32(b.length)
        .hex(body.toHex())
        .toArray();
  }

  @ParameterizedTest
  @ValueSource(ints = {1 << 20, 1, 7})
  void aBrokenCellFailsOnlyItsStream(int chunk) {
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline rows =
        CqlPipeline.install(channel.pipeline(), 5, Compression.LZ4, ParseLimits.defaults(), null);
    Driver driver = new Driver();
    channel.pipeline().addLast("driver", driver);
    RecordingSink sink1 = new RecordingSink();
    RecordingSink sink2 = new RecordingSink();
    rows.expect(1, sink1);
    rows.expect(2, sink2);

    byte[] ready = CqlBytes.create().hex("85 00 0000 02 00000000").toArray();
    byte[] broken = rowsEnvelope(1, CqlBytes.create().bytes("00000001").bytes("000002"));
    byte[] good = rowsEnvelope(2, CqlBytes.create().bytes("00000002").bytes("0000002a"));
    byte[] wire =
        SegmentBuilder.concat(ready, SegmentBuilder.lz4(SegmentBuilder.concat(broken, good), true));
    for (int at = 0; at < wire.length; at += chunk) {
      int n = Math.min(chunk, wire.length - at);
      channel.writeInbound(Unpooled.wrappedBuffer(wire, at, n));
    }

    assertNull(driver.error);
    assertEquals(3, driver.received.size(), driver.received::toString);
    assertEquals("READY", driver.received.get(0));
    RowsFailure failure = assertInstanceOf(RowsFailure.class, driver.received.get(1));
    assertEquals(1, failure.streamId());
    assertFalse(failure.cause().connectionLevel());
    CqlParseException e = failure.parseError();
    assertNotNull(e);
    assertEquals(CqlParseException.Reason.LENGTH_MISMATCH, e.reason());
    assertEquals(0, e.row());
    assertEquals(1, e.column());
    assertEquals("v", e.columnName());
    assertEquals(NativeType.INT, e.type());
    RowsResponse response = assertInstanceOf(RowsResponse.class, driver.received.get(2));
    assertEquals(2, response.streamId());
    assertEquals(1, assertInstanceOf(RowsResult.class, response.result()).rowCount());
    assertEquals(
        List.of("start 1", "row 0", "0:int 2", "1:int 42", "/row 0", "end 1"), sink2.events());
    assertNotNull(channel.pipeline().get(CqlPipeline.SEGMENT_TO_FRAME_DECODER));
    assertFalse(channel.finishAndReleaseAll());
  }
}
