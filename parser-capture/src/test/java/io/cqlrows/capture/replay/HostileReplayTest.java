package io.cqlrows.capture.replay;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;

/**
 * A replayed server whose frames are its worst: a header declaring 2 GiB ends the connection (the
 * results before it are delivered, the valid frames after it are not read); a compressed body that
 * would decompress to more than the limit fails only its response.
 */
class HostileReplayTest {
  private static final byte[] VOID_BODY = {0, 0, 0, 1};

  @Test
  void aLengthOverTheLimitEndsTheConnection() {
    byte[] s2c =
        concat(
            frameBytes(0x84, 0, 1, 0x08, VOID_BODY),
            ByteBufUtil.decodeHexDump("84" + "00" + "0002" + "08" + "7fffffff"),
            frameBytes(0x84, 0, 3, 0x08, VOID_BODY),
            frameBytes(0x84, 0, 4, 0x08, VOID_BODY),
            frameBytes(0x84, 0, 5, 0x08, VOID_BODY));
    Listener listener = new Listener();
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () ->
                ConnectionReplay.replay(
                    "c", null, s2c, new PreparedStatements(), ParseLimits.defaults(), listener));
    assertTrue(e.connectionLevel());
    assertEquals(Reason.FRAME_TOO_LARGE, e.reason());
    assertEquals(2, e.streamId());
    assertEquals(13, e.offset());
    assertEquals(List.of("result 1"), listener.events, "nothing after the header is read");
  }

  /**
   * A v4 LZ4 body that decompresses to 4 MiB, with a 1 MiB limit: its stream gets the error, the
   * compressed response after it decodes (its compression detected then).
   */
  @Test
  void aBodyOverTheDecompressionLimitFailsOnlyItsResponse() {
    byte[] bomb = new byte[4 << 20];
    bomb[3] = 1;
    byte[] s2c =
        concat(
            frameBytes(0x84, 0, 1, 0x08, VOID_BODY),
            frameBytes(0x84, Frame.FLAG_COMPRESSION, 2, 0x08, lz4Body(bomb)),
            frameBytes(0x84, Frame.FLAG_COMPRESSION, 3, 0x08, lz4Body(VOID_BODY)));
    Listener listener = new Listener();
    ConnectionReplay.replay(
        "c",
        null,
        s2c,
        new PreparedStatements(),
        ParseLimits.builder().maxDecompressedLength(1 << 20).build(),
        listener);
    assertEquals(
        List.of("result 1", "error 2 DECOMPRESSED_TOO_LARGE", "result 3"), listener.events);
    assertFalse(listener.errors.get(0).connectionLevel());
  }

  private static byte[] lz4Body(byte[] plain) {
    byte[] block = LZ4Factory.fastestInstance().fastCompressor().compress(plain);
    byte[] body = new byte[4 + block.length];
    java.nio.ByteBuffer.wrap(body).putInt(plain.length).put(block);
    return body;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** Records results and errors in order. */
  private static final class Listener implements ReplayListener {
    final List<String> events = new ArrayList<>();
    final List<CqlFrameException> errors = new ArrayList<>();

    @Override
    public RowSink sinkFor(Response response) {
      return new CountingSink();
    }

    @Override
    public void onResult(Response response, CqlResult result) {
      events.add("result " + response.streamId());
    }

    @Override
    public void onError(Response response, CqlFrameException error) {
      events.add("error " + response.streamId() + " " + error.reason());
      errors.add(error);
    }
  }
}
