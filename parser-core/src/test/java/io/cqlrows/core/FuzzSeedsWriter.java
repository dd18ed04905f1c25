package io.cqlrows.core;

import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The seed step of the core fuzz tests: cuts small seeds out of the real captures of the corpus and
 * writes them into Jazzer's regression-input directories, where {@code mvn verify} replays them and
 * a fuzzing run starts from them. Not run by default (its name matches no Surefire include, and it
 * needs a property); run it after a corpus change with
 *
 * <pre>
 * mvn -o -pl parser-core test -Dtest=FuzzSeedsWriter -Dcqlrows.writeFuzzSeeds=true
 * </pre>
 *
 * <p>It writes {@code seed-*} files only (a fuzzing run's {@code crash-*} findings beside them are
 * left alone), overwriting those of the same name, into {@code
 * src/test/resources/io/cqlrows/core/<Class>Inputs/<method>/}:
 *
 * <ul>
 *   <li>{@link ResultReaderFuzzTest#readsAnyBody}: every RESULT body of the captures a-v4 (ROWS,
 *       PREPARED followed by its {@code No_metadata} ROWS), b-v5 (the {@code Metadata_changed}
 *       results) and e-v4-paging (a page with a paging state); bodies over {@link #MAX_BODY} bytes
 *       keep only their first rows, and seeds over {@link #MAX_SEED} bytes are left out. The config
 *       byte cycles through the sinks and buffer kinds.
 *   <li>{@link LazyPageFuzzTest#readsBackAsEager}: the same bodies, with configuration bytes of its
 *       own.
 *   <li>{@link CqlTypeReaderFuzzTest#option}: every distinct column {@code [option]} of those
 *       results; {@link CqlTypeReaderFuzzTest#customTypeName}: every distinct custom class name.
 * </ul>
 */
class FuzzSeedsWriter {
  /** Rows bodies larger than this are cut to their first rows. */
  static final int MAX_BODY = 3000;

  /** Seeds larger than this (a single row of wide vectors) are left out. */
  static final int MAX_SEED = 8192;

  private static final String MARSHAL = "org.apache.cassandra.db.marshal.";

  @Test
  @EnabledIfSystemProperty(named = "cqlrows.writeFuzzSeeds", matches = "true")
  void writeSeeds() throws IOException {
    Map<String, Seed> bodies = new LinkedHashMap<>();
    Set<String> options = new LinkedHashSet<>();
    Set<String> classNames = new LinkedHashSet<>();
    List<byte[]> pairs = new ArrayList<>();

    List<Corpus.Envelope> a = new ArrayList<>();
    a.addAll(Corpus.envelopes(Corpus.bytes("a-v4", "conn-00.s2c.bin")));
    a.addAll(Corpus.envelopes(Corpus.bytes("a-v4", "conn-01.s2c.bin")));
    byte[] lastPrepared = null;
    int n = 0;
    for (Corpus.Envelope e : a) {
      if (e.opcode() != 0x08) {
        continue;
      }
      byte[] body = e.body();
      collectNames(body, classNames);
      int kind = readInt(body, 0);
      if (kind == PreparedResult.KIND) {
        lastPrepared = body;
        bodies.put("a-v4-prepared-" + n++, config(4, n).then(body));
      } else if (kind == RowsResult.KIND
          && (readInt(body, 4) & RowsMetadata.FLAG_NO_METADATA) != 0) {
        if (lastPrepared != null) {
          pairs.add(concat(lengthPrefixed(lastPrepared), lengthPrefixed(cut(body, 1))));
        }
      } else if (kind == RowsResult.KIND) {
        options.addAll(columnOptions(body));
        bodies.put("a-v4-rows-" + n++, config(4, n).then(cut(body, -1)));
      }
    }
    for (int i = 0; i < pairs.size(); i++) {
      bodies.put("a-v4-execute-" + i, new Seed(config(4, i).config, pairs.get(i)));
    }
    // v5: the Metadata_changed results and their No_metadata successor
    List<Corpus.Envelope> b =
        Corpus.envelopes(Corpus.v5Envelopes(Corpus.bytes("b-v5", "conn-01.s2c.bin")));
    for (Corpus.Envelope e : b) {
      byte[] body = e.body();
      if (e.opcode() == 0x08
          && readInt(body, 0) == RowsResult.KIND
          && (readInt(body, 4) & RowsMetadata.FLAG_METADATA_CHANGED) != 0) {
        bodies.put("b-v5-metadata-changed-" + n++, config(5, n).then(cut(body, 2)));
      }
    }
    // a page with Has_more_pages and its paging state
    for (Corpus.Envelope e : Corpus.envelopes(Corpus.bytes("e-v4-paging", "conn-01.s2c.bin"))) {
      byte[] body = e.body();
      if (e.opcode() == 0x08
          && readInt(body, 0) == RowsResult.KIND
          && (readInt(body, 4) & RowsMetadata.FLAG_HAS_MORE_PAGES) != 0) {
        bodies.put("e-v4-page", config(4, 2).then(cut(body, 2)));
        break;
      }
    }
    // ScyllaDB v4 with its extensions (sink 7): a PREPARED with result_metadata_id and the LWT
    // bit, then a No_metadata result of it, and a PREPARED whose text is not UTF-8
    bodies.put(
        "scylla-v4-prepared-execute",
        new Seed(
            (byte) (1 | 7 << 2),
            concat(
                lengthPrefixed(
                    bytes(
                        ScyllaResultsTest.preparedV4(
                            new byte[] {1, 2, 3, 4},
                            new byte[] {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6},
                            0x80000000))),
                lengthPrefixed(
                    bytes(RowsBodies.rows().noMetadata(2).row("00000007", "61ff62").build())))));
    // a vector<float, 600> page into ColumnarSink with reused arrays (sink 4), in a heap buffer:
    // float vectors this long take NativeSwapCopy's native swapping copy on JDK 25 and later
    bodies.put(
        "vector-float-600-columnar",
        new Seed(
            (byte) (1 | 4 << 2),
            lengthPrefixed(
                bytes(
                    RowsBodies.rows()
                        .column("v", RowsBodies.vector("FloatType", 600))
                        .row(floatsHex(600, 1))
                        .row(floatsHex(600, 2))
                        .build()))));

    Path core = resources().resolve("io/cqlrows/core");
    Path rows = core.resolve("ResultReaderFuzzTestInputs/readsAnyBody");
    Path lazy = core.resolve("LazyPageFuzzTestInputs/readsBackAsEager");
    int k = 0;
    for (Map.Entry<String, byte[]> s : flatten(bodies).entrySet()) {
      if (s.getValue().length <= MAX_SEED) {
        write(rows, s.getKey(), s.getValue());
        write(lazy, s.getKey(), lazyConfig(s.getValue(), k++));
      }
    }
    Path opt = core.resolve("CqlTypeReaderFuzzTestInputs/option");
    int i = 0;
    for (String hex : options) {
      write(
          opt,
          "seed-option-" + i,
          concat(
              new byte[] {(byte) (i % 5 == 0 ? 1 : 0)},
              io.netty.buffer.ByteBufUtil.decodeHexDump(hex)));
      i++;
    }
    Path names = core.resolve("CqlTypeReaderFuzzTestInputs/customTypeName");
    i = 0;
    for (String name : classNames) {
      write(
          names,
          "seed-name-" + i,
          concat(new byte[] {(byte) (i % 5 == 0 ? 1 : 0)}, name.getBytes(StandardCharsets.UTF_8)));
      i++;
    }
  }

  /** A config byte and what follows it. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Seed(byte config, byte[] rest) {
    byte[] bytes() {
      return FuzzSeedsWriter.concat(new byte[] {config}, rest);
    }

    Seed then(byte[] body) {
      return new Seed(config, lengthPrefixed(body));
    }
  }

  /**
   * The config byte of {@link ResultReaderFuzzTest#readsAnyBody}: the protocol version, and a sink
   * and buffer kind that vary with {@code i}.
   */
  private static Seed config(int version, int i) {
    int sink = i % 8;
    int buffer = (i / 8) % 4;
    return new Seed((byte) ((version - 3) | sink << 2 | buffer << 6), new byte[0]);
  }

  /**
   * A seed of {@link ResultReaderFuzzTest#readsAnyBody} as one of {@link
   * LazyPageFuzzTest#readsBackAsEager}: the same version and bodies, with a lazy read, a piece size
   * and the raw-cells bit that vary with {@code i} (malformed text replaced in every fifth).
   */
  private static byte[] lazyConfig(byte[] seed, int i) {
    byte[] out = seed.clone();
    int version = seed[0] & 3;
    int raw = seed[0] & 0x20;
    int replace = i % 5 == 4 ? 0x10 : 0;
    out[0] = (byte) (version | (i % 4) << 2 | replace | raw | ((i / 4) % 4) << 6);
    return out;
  }

  /**
   * {@code n} big-endian floats in hex: every seventh a NaN with a payload, -0.0, a subnormal or
   * -infinity in turn, the others random bits.
   */
  private static String floatsHex(int n, long seed) {
    Random random = new Random(seed);
    int[] specials = {0x7fc00001, 0x80000000, 0x00000001, 0xff800000};
    StringBuilder hex = new StringBuilder();
    for (int i = 0; i < n; i++) {
      hex.append(String.format("%08x", i % 7 == 0 ? specials[i / 7 % 4] : random.nextInt()));
    }
    return hex.toString();
  }

  private static Map<String, byte[]> flatten(Map<String, Seed> seeds) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    seeds.forEach((k, v) -> out.put("seed-" + k, v.bytes()));
    return out;
  }

  /**
   * A ROWS body with metadata cut to its first rows so that it stays under {@link #MAX_BODY} bytes
   * (at least one row), or to {@code maxRows} rows if that is not -1.
   */
  static byte[] cut(byte[] body, int maxRows) {
    return cut(body, maxRows, MAX_BODY);
  }

  /**
   * A ROWS body cut to its first rows: at most {@code maxRows} (-1: any number) and, beyond the
   * first row, at most {@code maxBytes} bytes in all; {@code rows_count} is rewritten to match.
   */
  static byte[] cut(byte[] body, int maxRows, int maxBytes) {
    ByteBuf buf = Unpooled.wrappedBuffer(body);
    BodyReader in = new BodyReader(buf, 0, 0, body.length);
    in.readInt("kind");
    int flags = in.readInt("flags");
    int columns = in.readInt("columns_count");
    skipMetadata(in, flags, columns);
    int countAt = in.position;
    int rowCount = in.readInt("rows_count");
    int p = in.position;
    int kept = 0;
    while (kept < rowCount && (maxRows < 0 || kept < maxRows)) {
      int q = p;
      for (int c = 0; c < columns; c++) {
        int len = readInt(body, q);
        q += 4 + Math.max(len, 0);
      }
      if (kept > 0 && q > maxBytes) {
        break;
      }
      p = q;
      kept++;
    }
    byte[] out = Arrays.copyOf(body, p);
    out[countAt] = (byte) (kept >>> 24);
    out[countAt + 1] = (byte) (kept >>> 16);
    out[countAt + 2] = (byte) (kept >>> 8);
    out[countAt + 3] = (byte) kept;
    return out;
  }

  /** Moves {@code in} past the metadata after {@code columns_count}; returns the options. */
  private static List<String> skipMetadata(BodyReader in, int flags, int columns) {
    if ((flags & RowsMetadata.FLAG_HAS_MORE_PAGES) != 0) {
      in.readBytes("paging_state");
    }
    if ((flags & RowsMetadata.FLAG_METADATA_CHANGED) != 0) {
      in.readShortBytes("new_metadata_id");
    }
    List<String> options = new ArrayList<>();
    if ((flags & RowsMetadata.FLAG_NO_METADATA) != 0) {
      return options;
    }
    boolean global = (flags & RowsMetadata.FLAG_GLOBAL_TABLES_SPEC) != 0;
    if (global) {
      in.readString("ks");
      in.readString("table");
    }
    for (int c = 0; c < columns; c++) {
      if (!global) {
        in.readString("ks");
        in.readString("table");
      }
      in.readString("name");
      int from = in.position;
      CqlTypeReader.read(in, ParseLimits.defaults());
      options.add(io.netty.buffer.ByteBufUtil.hexDump(in.buf, from, in.position - from));
    }
    return options;
  }

  private static List<String> columnOptions(byte[] body) {
    BodyReader in = new BodyReader(Unpooled.wrappedBuffer(body), 0, 0, body.length);
    in.readInt("kind");
    int flags = in.readInt("flags");
    int columns = in.readInt("columns_count");
    return skipMetadata(in, flags, columns);
  }

  /** Every custom type class name in the body: a [string] after option id 0x0000. */
  private static void collectNames(byte[] body, Set<String> out) {
    byte[] marshal = MARSHAL.getBytes(StandardCharsets.US_ASCII);
    for (int i = 4; i + marshal.length <= body.length; i++) {
      if (body[i - 4] != 0 || body[i - 3] != 0 || !startsWith(body, i, marshal)) {
        continue;
      }
      int len = (body[i - 2] & 0xFF) << 8 | (body[i - 1] & 0xFF);
      if (len >= marshal.length && i + len <= body.length) {
        out.add(new String(body, i, len, StandardCharsets.UTF_8));
      }
    }
  }

  private static boolean startsWith(byte[] a, int at, byte[] prefix) {
    for (int k = 0; k < prefix.length; k++) {
      if (a[at + k] != prefix[k]) {
        return false;
      }
    }
    return true;
  }

  static int readInt(byte[] b, int at) {
    return (b[at] & 0xFF) << 24
        | (b[at + 1] & 0xFF) << 16
        | (b[at + 2] & 0xFF) << 8
        | (b[at + 3] & 0xFF);
  }

  static byte[] lengthPrefixed(byte[] body) {
    if (body.length > 0xFFFF) {
      throw new IllegalArgumentException("body of " + body.length + " bytes");
    }
    return concat(new byte[] {(byte) (body.length >>> 8), (byte) body.length}, body);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** The readable bytes of a buffer, which is released. */
  private static byte[] bytes(io.netty.buffer.ByteBuf buf) {
    try {
      return io.netty.buffer.ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  /** {@code src/test/resources} of this module (Surefire runs in the module directory). */
  static Path resources() {
    return Path.of(System.getProperty("basedir", ".")).resolve("src/test/resources");
  }

  static void write(Path dir, String name, byte[] bytes) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve(name), bytes);
  }
}
