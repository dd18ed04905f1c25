package io.cqlrows.cli;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.CqlTestFrames.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.client.FakeCqlServer;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile server's worst, replayed by the packaged command ({@link JarProcess}) in a JVM of 128
 * MiB: a 1 MB LZ4 frame that really decompresses to 255 MiB is one error for its response, not an
 * {@code OutOfMemoryError}, and the response after it is printed; a frame header declaring 2 GiB is
 * one line on stderr, and the valid frames after it are not read. Both exit with status 1. The
 * captures are raw server-to-client byte streams ({@code *.s2c.bin}, without a client side), made
 * here.
 */
class HostileCaptureIT {
  private static final List<String> SMALL_HEAP = List.of("-Xmx128m");

  /** ROWS: one int column {@code ks.t.x}, one row holding 0x01020304. */
  private static final byte[] ROWS =
      ByteBufUtil.decodeHexDump(
          "00000002"
              + "00000001"
              + "00000001"
              + "00026b73"
              + "000174"
              + "000178"
              + "0009"
              + "00000001"
              + "00000004"
              + "01020304");

  @TempDir static Path dir;

  @Test
  void aDecompressionBombIsAnErrorForItsResponseNotAnOutOfMemoryError() throws Exception {
    byte[] bomb = new byte[255 << 20];
    bomb[3] = 1; // a VOID result, then zeros
    byte[] bombFrame = lz4Frame(2, bomb);
    assertTrue(bombFrame.length < (1 << 20) + 100, "about 1 MB: " + bombFrame.length);
    Path file = dir.resolve("bomb.s2c.bin");
    Files.write(file, concat(bombFrame, lz4Frame(3, ROWS)));

    JarProcess.Result r = replay(file);
    assertEquals(1, r.status(), r.err());
    assertFalse(r.err().contains("OutOfMemoryError"), r.err());
    List<String> lines = r.lines();
    assertEquals(2, lines.size(), String.join("\n", lines));
    JsonNode error = json(lines.get(0));
    assertEquals(2, error.get("stream").asInt());
    assertTrue(
        error.get("error").asText().contains("uncompressed length: " + bomb.length), lines.get(0));
    JsonNode rows = json(lines.get(1));
    assertEquals(3, rows.get("stream").asInt());
    assertEquals(0x01020304, rows.get("rows").get(0).get(0).asInt(), "the frame after it");
  }

  @Test
  void aHeaderDeclaring2GiBIsOneLineOnStderr() throws Exception {
    byte[] liar = ByteBufUtil.decodeHexDump("84" + "00" + "0002" + "08" + "7fffffff");
    byte[] valid = frameBytes(0x84, 0, 3, 0x08, ROWS);
    Path file = dir.resolve("liar.s2c.bin");
    Files.write(file, concat(liar, valid, valid, valid));

    JarProcess.Result r = replay(file);
    assertEquals(1, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("cqlrows: "), r.err());
    assertTrue(r.err().contains("stream 2: body length: 2147483647"), r.err());
    assertTrue(r.err().contains("(frame header at offset 0)"), r.err());
    assertEquals(List.of(), r.lines(), "nothing after the header is read");
  }

  /**
   * {@code query} with the same heap, against a server that answers with the bomb: one line on
   * stderr naming the limit, exit 1, no {@code OutOfMemoryError}; and against one that answers with
   * a header declaring 2 GiB: one line, exit 1, at once (no wait for the 2 GiB).
   */
  @Test
  void queryEndsWithATypedErrorOnABombOrA2GiBHeader() throws Exception {
    byte[] bomb = new byte[255 << 20];
    bomb[3] = 1;
    byte[] block = LZ4Factory.fastestInstance().fastCompressor().compress(bomb);
    EventLoopGroup group = EventLoops.nio(1);
    FakeCqlServer server = new FakeCqlServer(group, 4, Compression.LZ4);
    try {
      server.rawAnswers =
          (stream, query) ->
              switch (query) {
                case "BOMB" ->
                    frameBytes(
                        0x84,
                        0x01,
                        stream,
                        0x08,
                        ByteBuffer.allocate(4 + block.length)
                            .putInt(bomb.length)
                            .put(block)
                            .array());
                case "LIAR" ->
                    ByteBufUtil.decodeHexDump(
                        "84" + "00" + String.format("%04x", stream) + "08" + "7fffffff");
                default -> null;
              };
      for (String statement : List.of("BOMB", "LIAR")) {
        JarProcess.Result r =
            JarProcess.run(
                dir,
                SMALL_HEAP,
                Map.of(),
                List.of(
                    "query",
                    "--port",
                    Integer.toString(server.port()),
                    "--protocol",
                    "4",
                    "--compression",
                    "lz4",
                    "--quiet",
                    "--timeout",
                    "60",
                    "--format",
                    "jsonl",
                    statement));
        assertEquals(1, r.status(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertFalse(r.err().contains("OutOfMemoryError"), r.err());
        // the limit the response broke, as the error names it
        assertTrue(
            r.err()
                .contains(
                    statement.equals("BOMB")
                        ? "ParseLimits.maxDecompressedLength"
                        : "ParseLimits.maxFrameBodyLength"),
            r.err());
        assertEquals(List.of(), r.lines());
      }
    } finally {
      server.close();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  private static JarProcess.Result replay(Path file) throws IOException, InterruptedException {
    return JarProcess.run(
        dir, SMALL_HEAP, Map.of(), List.of("replay", "--format", "jsonl", file.toString()));
  }

  /** A v4 RESULT frame on {@code stream} with an LZ4 body that decompresses to {@code plain}. */
  private static byte[] lz4Frame(int stream, byte[] plain) {
    byte[] block = LZ4Factory.fastestInstance().fastCompressor().compress(plain);
    byte[] body = ByteBuffer.allocate(4 + block.length).putInt(plain.length).put(block).array();
    return frameBytes(0x84, 0x01, stream, 0x08, body);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
