package io.cqlrows.netty.pcap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.testing.Corpus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Hostile input: random bytes and corrupted real captures must end in {@link
 * PcapFormatException} or in packets, never in another exception, and the reassembler must take
 * whatever packets come out without throwing.
 */
class PcapReaderFuzzTest {
  private static final int CASES = 400;

  /** Reads and reassembles; returns true if the file was accepted to the end. */
  private static boolean survives(byte[] file, String what) {
    TcpReassembler reassembler = new TcpReassembler(0, 1 << 16);
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(file))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        reassembler.add(p);
      }
      return true;
    } catch (PcapFormatException e) {
      assertTrue(e.offset() >= 0 && e.offset() <= file.length, what + ": " + e.getMessage());
      return false;
    } catch (IOException | RuntimeException | Error e) {
      throw new AssertionError(what + ": " + e, e);
    } finally {
      reassembler.finish().forEach(c -> c.clientToServer().bytes());
    }
  }

  @Test
  void randomBytesRaiseOnlyTheFormatException() {
    Random random = new Random(20240611);
    byte[][] heads = {
        {(byte) 0xd4, (byte) 0xc3, (byte) 0xb2, (byte) 0xa1, 2, 0, 4, 0},
        {(byte) 0xa1, (byte) 0xb2, 0x3c, 0x4d, 0, 2, 0, 4},
        {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0},
        {}};
    for (int i = 0; i < CASES; i++) {
      byte[] head = heads[i % heads.length];
      byte[] file = new byte[random.nextInt(600)];
      random.nextBytes(file);
      System.arraycopy(head, 0, file, 0, Math.min(head.length, file.length));
      survives(file, "random case " + i);
    }
  }

  @Test
  void corruptedCorpusHeadersRaiseOnlyTheFormatException() throws IOException {
    byte[] corpus = Corpus.bytes("b-v5", "capture.pcap");
    long cut = 0;
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(corpus))) {
      for (PcapPacket p; cut < 4096 && (p = reader.next()) != null; ) {
        cut = p.fileOffset(); // the first record boundary past 4 KiB
      }
    }
    mutate(Arrays.copyOf(corpus, (int) cut), 256, 20240612, "corpus");
  }

  @Test
  void corruptedPcapngRaisesOnlyTheFormatException() {
    Conversation conv = new Conversation().handshake().client(0, "OPTIONS").server(0, "ok");
    PcapFiles.Pcapng file = new PcapFiles.Pcapng(ByteOrder.BIG_ENDIAN)
        .iface(LinkType.ETHERNET, 0, 9, 3).iface(LinkType.RAW, 64, 0x80 | 30, 0)
        .block(4, new byte[8]);
    for (PcapPacket p : conv.packets()) {
      file.enhanced(0, p.timestampNanos(), p.data()).simple(p.data(), p.data().length);
    }
    byte[] bytes = file.toBytes();
    mutate(bytes, bytes.length, 20240613, "pcapng");
  }

  /** Each case flips 1-4 bytes within the first {@code region} bytes, and may cut the file. */
  private static void mutate(byte[] original, int region, long seed, String what) {
    Random random = new Random(seed);
    int accepted = 0;
    for (int i = 0; i < CASES; i++) {
      byte[] file = original.clone();
      for (int k = random.nextInt(4); k >= 0; k--) {
        file[random.nextInt(region)] = (byte) random.nextInt();
      }
      if (random.nextInt(4) == 0) {
        file = Arrays.copyOf(file, random.nextInt(file.length));
      }
      if (survives(file, what + " case " + i)) {
        accepted++;
      }
    }
    assertTrue(accepted < CASES, "some corruption must be detected");
  }
}
