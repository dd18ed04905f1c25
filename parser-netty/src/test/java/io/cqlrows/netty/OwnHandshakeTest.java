package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The "Decoders for a driver that runs its own handshake" example of docs/netty.md, compiled from
 * the page ({@link ReadmeBlocks}) and run on a channel: it writes STARTUP, and after READY the
 * query on its own stream id, whose RESULT reaches its collector.
 */
class OwnHandshakeTest {
  private static Path work;
  private static Class<?> example;

  @BeforeAll
  static void compileTheExample() throws IOException, ClassNotFoundException {
    work = Files.createTempDirectory("own-handshake");
    example = ReadmeBlocks.compile(ReadmeBlocks.source("docs/netty.md", "own-handshake"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(example);
  }

  @Test
  void startsItsConnectionAndReadsTheRowsOfItsQuery() throws Exception {
    Object initializer = example.getConstructor().newInstance();
    EmbeddedChannel channel = new EmbeddedChannel((ChannelHandler) initializer);
    assertEquals(Opcode.STARTUP.code(), opcodeOf(channel.readOutbound()));
    assertNull(channel.readOutbound(), "nothing before READY");

    channel.writeInbound(CqlTestFrames.frame(0x84, 0, 0, Opcode.READY.code(), new byte[0]));
    ByteBuf query = channel.readOutbound();
    assertEquals(1, query.getShort(2), "the driver's stream id");
    assertEquals(Opcode.QUERY.code(), opcodeOf(query));

    RowsBodies.Builder body = RowsBodies.rows().column("id", 0x0009).column("v", 0x0009);
    body.row("00000001", "0000000a").row("00000002", "00000014");
    ByteBuf built = body.build();
    byte[] bytes = ByteBufUtil.getBytes(built);
    built.release();
    channel.writeInbound(CqlTestFrames.frame(0x84, 0, 1, Opcode.RESULT.code(), bytes));

    @SuppressWarnings("unchecked")
    CompletableFuture<RowsResponse> response =
        (CompletableFuture<RowsResponse>) field(initializer, "response");
    assertTrue(response.isDone());
    assertEquals(1, response.get().streamId());
    RowsCollector rows = (RowsCollector) field(initializer, "rows");
    List<Integer> values = new ArrayList<>();
    for (Row row : rows.rows()) {
      values.add(row.getInt("id"));
      values.add(row.getInt("v"));
    }
    assertEquals(List.of(1, 10, 2, 20), values);
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The opcode of a written v4 envelope, which is released. */
  private static int opcodeOf(ByteBuf envelope) {
    try {
      return envelope.getUnsignedByte(envelope.readerIndex() + 4);
    } finally {
      envelope.release();
    }
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getField(name);
    return f.get(o);
  }
}
