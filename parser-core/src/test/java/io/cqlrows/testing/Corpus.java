package io.cqlrows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Access to the corpus of real Cassandra 5.0.6 captures copied into the test resources ({@code
 * /io/cqlrows/corpus/<capture>/}), and a minimal walker over unframed (v3/v4) envelopes so that
 * core tests can reach RESULT bodies without the Netty layer.
 */
public final class Corpus {
  /** Classpath root of the corpus. */
  public static final String ROOT = "/io/cqlrows/corpus/";

  private static final ObjectMapper JSON = new ObjectMapper();

  private Corpus() {}

  /** The bytes of a corpus file, e.g. {@code bytes("a-v4", "conn-01.s2c.bin")}. */
  public static byte[] bytes(String capture, String file) {
    try (InputStream in = Corpus.class.getResourceAsStream(ROOT + capture + "/" + file)) {
      if (in == null) {
        throw new IllegalArgumentException("no corpus file " + capture + "/" + file);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of a JSON Lines corpus file, parsed. */
  public static List<JsonNode> jsonLines(String capture, String file) {
    List<JsonNode> out = new ArrayList<>();
    try (InputStream in = Corpus.class.getResourceAsStream(ROOT + capture + "/" + file);
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isBlank()) {
          out.add(JSON.readTree(line));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses one JSON document. */
  public static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The envelopes of an uncompressed v5 capture as one v3/v4-style stream (for {@link #envelopes}):
   * the unframed ones up to READY, then the payloads of the segments that follow, concatenated (a
   * large envelope's slices join up again).
   */
  public static byte[] v5Envelopes(byte[] s2c) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    int p = 0;
    for (boolean ready = false; !ready; ) {
      int len =
          (s2c[p + 5] & 0xFF) << 24
              | (s2c[p + 6] & 0xFF) << 16
              | (s2c[p + 7] & 0xFF) << 8
              | (s2c[p + 8] & 0xFF);
      ready = s2c[p + 4] == 0x02; // READY
      out.write(s2c, p, 9 + len);
      p += 9 + len;
    }
    while (p + 6 <= s2c.length) {
      int word = (s2c[p] & 0xFF) | (s2c[p + 1] & 0xFF) << 8 | (s2c[p + 2] & 0xFF) << 16;
      int len = word & 0x1FFFF;
      out.write(s2c, p + 6, len);
      p += 6 + len + 4;
    }
    return out.toByteArray();
  }

  /** One unframed envelope of a capture: header fields and the body after the prelude. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  public record Envelope(int offset, int version, int flags, int stream, int opcode, byte[] body) {
    /** The body as a new heap buffer, which the caller owns and releases. */
    public ByteBuf bodyBuf() {
      return Unpooled.wrappedBuffer(body);
    }
  }

  /**
   * Splits a v3/v4 byte stream into envelopes and strips the response prelude (tracing id,
   * warnings, custom payload; native_protocol_v4.spec section 4). Only for uncompressed captures.
   */
  public static List<Envelope> envelopes(byte[] stream) {
    ByteBuf in = Unpooled.wrappedBuffer(stream);
    List<Envelope> out = new ArrayList<>();
    while (in.readableBytes() >= 9) {
      int offset = in.readerIndex();
      int version = in.readUnsignedByte() & 0x7F;
      int flags = in.readUnsignedByte();
      int streamId = in.readShort();
      int opcode = in.readUnsignedByte();
      int length = in.readInt();
      ByteBuf body = in.readSlice(length);
      if ((flags & 0x02) != 0) {
        body.skipBytes(16);
      }
      if ((flags & 0x08) != 0) {
        int n = body.readUnsignedShort();
        for (int i = 0; i < n; i++) {
          body.skipBytes(body.readUnsignedShort());
        }
      }
      if ((flags & 0x04) != 0) {
        int n = body.readUnsignedShort();
        for (int i = 0; i < n; i++) {
          body.skipBytes(body.readUnsignedShort());
          int len = body.readInt();
          body.skipBytes(Math.max(len, 0));
        }
      }
      byte[] b = new byte[body.readableBytes()];
      body.readBytes(b);
      out.add(new Envelope(offset, version, flags, streamId, opcode, b));
    }
    return out;
  }
}
