package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ScyllaDB session of {@link ScyllaSession} is also committed as raw byte streams, {@code
 * src/test/resources/io/cqlrows/captures/scylla-v4[-lz4|-snappy].{s2c,c2s}.bin}, so that the
 * command line can replay it (and CI can compare builds on it). This test keeps the files equal to
 * what the generator writes; after changing the generator, write them again with {@link
 * ScyllaSessionWriter}.
 */
class ScyllaSessionFixtureTest {
  private static final String DIR = "/io/cqlrows/captures/";

  static String name(Compression compression) {
    return "scylla-v4"
        + switch (compression) {
          case NONE -> "";
          case LZ4 -> "-lz4";
          case SNAPPY -> "-snappy";
        };
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void theCommittedStreamsAreTheGeneratorsBytes(Compression compression) throws IOException {
    ScyllaSession.Bytes session = ScyllaSession.write(compression);
    assertArrayEquals(session.serverToClient(), resource(name(compression) + ".s2c.bin"));
    assertArrayEquals(session.clientToServer(), resource(name(compression) + ".c2s.bin"));
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = ScyllaSessionFixtureTest.class.getResourceAsStream(DIR + name)) {
      if (in == null) {
        throw new AssertionError("no test resource " + DIR + name);
      }
      return in.readAllBytes();
    }
  }
}
