package io.cqlrows.capture.pcap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Damaged captures through the whole streaming path (file, packets, reassembly, decoders, digest):
 * bytes flipped anywhere, runs zeroed, the file cut. Each either digests (what can be decoded, with
 * notes and failures for the rest) or is refused with a {@link PcapFormatException}; nothing else
 * escapes, and paranoid leak detection sees every buffer released.
 */
class FileReplayHostileTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void aDamagedCaptureDigestsOrIsRefusedAsSuch(int seed) throws IOException {
    byte[] pcap = Corpus.bytes(seed % 2 == 0 ? "a-v4" : "b-v5", "capture.pcap");
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 5; round++) {
      byte[] damaged = pcap.clone();
      int edits = 1 + r.nextInt(20);
      for (int e = 0; e < edits; e++) {
        int at = r.nextInt(damaged.length);
        switch (r.nextInt(3)) {
          case 0 -> damaged[at] ^= (byte) (1 << r.nextInt(8));
          case 1 -> damaged[at] = (byte) r.nextInt(256);
          default -> {
            int n = Math.min(damaged.length - at, 1 + r.nextInt(64));
            Arrays.fill(damaged, at, at + n, (byte) 0);
          }
        }
      }
      if (r.nextInt(4) == 0) {
        damaged = Arrays.copyOf(damaged, r.nextInt(damaged.length));
      }
      Path file = dir.resolve("damaged-" + seed + "-" + round + ".pcap");
      Files.write(file, damaged);
      try {
        DigestReport report = Digest.of(file, FileReplay.builder().build(), Digest.Limits.DEFAULT);
        assertTrue(report.bytesRead() <= damaged.length);
      } catch (PcapFormatException refused) {
        // a file whose header is damaged: refused as no capture, with its reason
      }
      Files.delete(file);
    }
  }
}
