package io.cqlrows.capture.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The digest of a ScyllaDB session with its protocol extensions (rate-limit errors with the code
 * from SUPPORTED, LWT marks, metadata ids), raw and compressed: every request counted under its
 * opcode, as a plain walk of the client's envelopes counts them, and the rate-limit error under
 * ScyllaDB's code.
 */
class DigestScyllaTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Compression.class)
  void countsEveryRequestAndTheRateLimitErrorByItsCode(Compression compression) throws IOException {
    ScyllaSession.Bytes session = ScyllaSession.write(compression);
    Path s2c = dir.resolve("scylla.s2c.bin");
    Files.write(s2c, session.serverToClient());
    Files.write(dir.resolve("scylla.c2s.bin"), session.clientToServer());
    DigestReport report =
        Digest.of(s2c, FileReplay.builder().build(), new Digest.Limits(100, 100, 0));

    Map<String, Long> plain = new HashMap<>();
    for (Corpus.Envelope e : Corpus.envelopes(session.clientToServer())) {
      plain.merge(Opcode.fromCode(e.opcode()).name(), 1L, Long::sum);
    }
    Map<String, Long> counted = new HashMap<>();
    long rateLimited = 0;
    for (DigestReport.Entry e : report.opcodes()) {
      counted.put(e.name(), e.count() + e.unanswered());
      rateLimited += e.errorCodes().getOrDefault(0xF000, 0L);
      assertEquals(0, e.undecodable(), e.name());
    }
    assertEquals(plain, counted);
    assertEquals(1, rateLimited, "the INSERT's rate-limit error, with SUPPORTED's code");
    assertFalse(report.timed(), "raw streams carry no times");
  }
}
