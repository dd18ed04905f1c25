package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.request.DecodedRequest;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CqlPipeline#startup()}: the STARTUP it writes carries the compression given to install,
 * and each answer completes or fails its future and is taken out of the pipeline.
 */
class StartupTest {
  @ParameterizedTest
  @CsvSource({"4, NONE", "4, LZ4", "5, NONE", "5, LZ4"})
  void writesTheOptionsOfTheInstalledCompression(int version, Compression compression) {
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline cql = CqlPipeline.install(channel.pipeline(), version, compression);
    CompletableFuture<Void> ready = cql.startup();
    channel.runPendingTasks();
    DecodedRequest startup = written(channel);
    assertEquals(Opcode.STARTUP, startup.opcode());
    assertEquals(0, startup.streamId());
    assertEquals(version, startup.version());
    Map<String, String> expected =
        compression == Compression.LZ4
            ? Map.of("CQL_VERSION", "3.0.0", "COMPRESSION", "lz4")
            : Map.of("CQL_VERSION", "3.0.0");
    assertEquals(expected, startup.options());
    assertEquals(expected, cql.startupOptions());
    assertFalse(ready.isDone());
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @CsvSource({"4, LZ4", "5, LZ4", "5, NONE"})
  void readyCompletesTheFutureAndIsTakenOutOfThePipeline(int version, Compression compression) {
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline cql = CqlPipeline.install(channel.pipeline(), version, compression);
    CompletableFuture<Void> ready = cql.startup();
    channel.runPendingTasks();
    written(channel);
    assertTrue(channel.pipeline().names().contains(CqlPipeline.STARTUP_HANDLER));
    channel.writeInbound(response(version, Opcode.READY, new byte[0]));
    assertTrue(ready.isDone() && !ready.isCompletedExceptionally());
    assertNull(channel.readInbound(), "READY is not handed on");
    assertFalse(channel.pipeline().names().contains(CqlPipeline.STARTUP_HANDLER));
    assertEquals(
        version >= 5,
        channel.pipeline().get(CqlPipeline.BYTES_TO_SEGMENT_DECODER) != null,
        "segments on v5");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void anErrorFailsTheFutureWithTheServersError() {
    EmbeddedChannel channel = new EmbeddedChannel();
    CompletableFuture<Void> ready =
        CqlPipeline.install(channel.pipeline(), 4, Compression.NONE).startup();
    channel.runPendingTasks();
    written(channel);
    channel.writeInbound(
        response(
            4,
            Opcode.ERROR,
            CqlBytes.create()
                .int32(0x000A)
                .string("Invalid or unsupported protocol version")
                .toArray()));
    CqlServerError e = assertInstanceOf(CqlServerError.class, cause(ready));
    assertEquals(0x000A, e.code());
    assertNull(channel.readInbound());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void anAuthenticateFailsTheFuture() {
    EmbeddedChannel channel = new EmbeddedChannel();
    CompletableFuture<Void> ready =
        CqlPipeline.install(channel.pipeline(), 4, Compression.NONE).startup();
    channel.runPendingTasks();
    written(channel);
    channel.writeInbound(
        response(
            4,
            Opcode.AUTHENTICATE,
            CqlBytes.create().string("org.apache.cassandra.auth.PasswordAuthenticator").toArray()));
    assertInstanceOf(IllegalStateException.class, cause(ready));
    assertNull(channel.readInbound());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void otherFramesPassThroughWhileTheAnswerIsAwaited() {
    EmbeddedChannel channel = new EmbeddedChannel();
    CompletableFuture<Void> ready =
        CqlPipeline.install(channel.pipeline(), 4, Compression.NONE).startup();
    channel.runPendingTasks();
    written(channel);
    channel.writeInbound(
        frame(0x84, -1, Opcode.EVENT, CqlBytes.create().string("TOPOLOGY_CHANGE").toArray()));
    Frame event = channel.readInbound();
    assertEquals(Opcode.EVENT, event.opcode());
    assertTrue(event.release());
    assertFalse(ready.isDone());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aClosedConnectionFailsTheFuture() {
    EmbeddedChannel channel = new EmbeddedChannel();
    CompletableFuture<Void> ready =
        CqlPipeline.install(channel.pipeline(), 5, Compression.LZ4).startup();
    channel.runPendingTasks();
    written(channel);
    channel.close();
    CqlConnectionException e = assertInstanceOf(CqlConnectionException.class, cause(ready));
    assertEquals(CqlConnectionException.Reason.CLOSED_BY_SERVER, e.reason());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void theConnectionsPipelineSpeaksTheVersionsItsEncodersWrite() {
    assertThrows(IllegalArgumentException.class, () -> CqlPipeline.builder(3, Compression.NONE));
    assertThrows(IllegalArgumentException.class, () -> CqlPipeline.builder(6, Compression.NONE));
    assertThrows(IllegalArgumentException.class, () -> CqlPipeline.builder(5, Compression.SNAPPY));
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline cql = CqlPipeline.install(channel.pipeline(), 4, Compression.NONE);
    assertEquals(Compression.NONE, cql.compression());
    assertThrows(IllegalStateException.class, cql::switchToSegments);
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The envelope the channel wrote, decoded. */
  private static DecodedRequest written(EmbeddedChannel channel) {
    ByteBuf out = channel.readOutbound();
    EmbeddedChannel decoder = new EmbeddedChannel(new BytesToFrameDecoder());
    decoder.writeInbound(out);
    Frame frame = decoder.readInbound();
    try {
      return DecodedRequest.decode(frame);
    } finally {
      frame.release();
      decoder.finishAndReleaseAll();
    }
  }

  private static ByteBuf response(int version, Opcode opcode, byte[] body) {
    return frame(0x80 | version, 0, opcode, body);
  }

  private static ByteBuf frame(int versionByte, int stream, Opcode opcode, byte[] body) {
    return Unpooled.buffer()
        .writeByte(versionByte)
        .writeByte(0)
        .writeShort(stream)
        .writeByte(opcode.code())
        .writeInt(body.length)
        .writeBytes(body);
  }

  private static Throwable cause(CompletableFuture<Void> future) {
    assertTrue(future.isCompletedExceptionally());
    return assertThrows(ExecutionException.class, future::get).getCause();
  }
}
