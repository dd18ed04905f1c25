package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The "Drivers with their own framing" example of docs/netty.md, compiled from the page ({@link
 * ReadmeBlocks}) and run between a driver's decoded messages and a {@link RowsFrameHandler}: a
 * whole RESULT body, one passed on in parts, an ERROR, and a message that is not a response.
 */
class DriverAdapterTest {
  private static Path work;
  private static Class<?> adapter;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    work = Files.createTempDirectory("driver-adapter");
    adapter = ReadmeBlocks.compile(ReadmeBlocks.source("docs/netty.md", "driver-adapter"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(adapter);
  }

  @Test
  void aWholeBodyBecomesARowsResponse() throws Exception {
    EmbeddedChannel channel = channel();
    RowsFrameHandler rows = channel.pipeline().get(RowsFrameHandler.class);
    RowsCollector sink = new RowsCollector();
    rows.expect(7, sink);
    channel.writeInbound(message("Response", 4, 7, 0x08, body(3)));
    RowsResponse response = assertInstanceOf(RowsResponse.class, channel.readInbound());
    assertEquals(7, response.streamId());
    assertEquals(List.of(0, 1, 2), ids(sink));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aBodyInPartsReachesTheSinkAsItArrives() throws Exception {
    EmbeddedChannel channel = channel();
    RowsFrameHandler rows = channel.pipeline().get(RowsFrameHandler.class);
    RowsCollector sink = new RowsCollector();
    rows.expectStreaming(9, sink, null);
    ByteBuf body = body(50);
    int length = body.readableBytes();
    channel.writeInbound(message("ResultStart", 4, 9, length));
    int half = length / 2;
    channel.writeInbound(message("ResultPart", 9, body.readRetainedSlice(half), false));
    assertNull(channel.readInbound(), "no response before the last part");
    assertTrue(ids(sink).size() > 0 && ids(sink).size() < 50, "rows while the body arrives");
    channel.writeInbound(message("ResultPart", 9, body.readRetainedSlice(length - half), true));
    body.release();
    assertInstanceOf(RowsResponse.class, channel.readInbound());
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      expected.add(i);
    }
    assertEquals(expected, ids(sink));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void anErrorOnARegisteredStreamPassesOnAndEndsTheRegistration() throws Exception {
    EmbeddedChannel channel = channel();
    RowsFrameHandler rows = channel.pipeline().get(RowsFrameHandler.class);
    rows.expect(3, new RowsCollector());
    ByteBuf error =
        Unpooled.directBuffer()
            .writeInt(0x2200)
            .writeShort(3)
            .writeBytes("bad".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    channel.writeInbound(message("Response", 4, 3, 0x00, error));
    Frame passed = assertInstanceOf(Frame.class, channel.readInbound());
    assertEquals(Opcode.ERROR, passed.opcode());
    passed.release();
    RowsCollector sink = new RowsCollector();
    rows.expect(3, sink); // free again
    channel.writeInbound(message("Response", 4, 3, 0x08, body(2)));
    assertInstanceOf(RowsResponse.class, channel.readInbound());
    assertEquals(List.of(0, 1), ids(sink));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void otherMessagesPassOnUntouched() {
    EmbeddedChannel channel = channel();
    ByteBuf other = Unpooled.buffer().writeInt(42);
    channel.writeInbound(other);
    ByteBuf read = channel.readInbound();
    assertSame(other, read);
    assertEquals(1, read.refCnt());
    read.release();
    assertFalse(channel.finishAndReleaseAll());
  }

  private static EmbeddedChannel channel() {
    try {
      ChannelHandler a = (ChannelHandler) adapter.getConstructor().newInstance();
      return new EmbeddedChannel(a, new RowsFrameHandler(new ResultReader(4)));
    } catch (ReflectiveOperationException e) {
      throw new LinkageError(e.getMessage(), e);
    }
  }

  /** One of the example's records, by its simple name and component values. */
  private static Object message(String record, Object... components) throws Exception {
    for (Class<?> c : adapter.getDeclaredClasses()) {
      if (c.getSimpleName().equals(record)) {
        return c.getDeclaredConstructors()[0].newInstance(components);
      }
    }
    throw new AssertionError("no record " + record + " in the example");
  }

  /** A ROWS body of one int column {@code id}, the rows numbered from 0. */
  private static ByteBuf body(int rows) {
    RowsBodies.Builder b = RowsBodies.rows().column("id", 0x0009);
    for (int r = 0; r < rows; r++) {
      b.row(String.format("%08x", r));
    }
    ByteBuf built = b.build();
    ByteBuf copy = Unpooled.directBuffer(built.readableBytes()).writeBytes(built);
    built.release();
    return copy;
  }

  private static List<Integer> ids(RowsCollector sink) {
    List<Integer> ids = new ArrayList<>();
    for (Row row : sink.rows()) {
      ids.add(row.getInt("id"));
    }
    return ids;
  }
}
