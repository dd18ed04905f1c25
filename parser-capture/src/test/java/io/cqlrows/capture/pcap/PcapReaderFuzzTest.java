package io.cqlrows.capture.pcap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cqlrows.capture.replay.ConnectionReplay;
import io.cqlrows.capture.replay.PreparedStatements;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.testing.Allocations;
import io.cqlrows.testing.CheckingSink;
import io.cqlrows.testing.Corpus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Hostile input: random bytes and corrupted real captures must end in {@link PcapFormatException}
 * or in packets, never in another exception, and the reassembler must take whatever packets come
 * out without throwing.
 *
 * <p>{@link #readsAnyCapture} is the coverage-guided version (Jazzer): any bytes as a capture file,
 * read, reassembled and every TCP connection in it replayed through the CQL decoders the way the
 * {@code cqlrows} command does ({@link ConnectionReplay}; the part after a gap mid-stream).
 * Checked: only {@link PcapFormatException} from the reader, with an offset inside the file;
 * nothing from the reassembler; only {@link CqlFrameException} from a replay, and never one that
 * wraps a foreign exception; reassembled streams that agree with their own gaps and chunks; and
 * reading plus reassembly allocate at most {@link #READ_ALLOCATION} + {@link #READ_PER_BYTE} bytes
 * per file byte (measured again when over, as the first read of a format loads classes). Its
 * committed inputs are in {@code
 * src/test/resources/io/cqlrows/capture/pcap/PcapReaderFuzzTestInputs/readsAnyCapture/}; see
 * docs/testing.md, "Fuzzing".
 */
class PcapReaderFuzzTest {
  /** Allocation any read may make: the 64 KiB stream buffer, the reassembler's state. */
  static final long READ_ALLOCATION = 512 * 1024;

  /** Allocation per byte of the file while reading and reassembling. */
  static final long READ_PER_BYTE = 64;

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

  @FuzzTest(maxDuration = "5m")
  void readsAnyCapture(byte[] file) throws IOException {
    long bound = READ_ALLOCATION + READ_PER_BYTE * file.length;
    long before = Allocations.current();
    List<TcpConnection> connections = reassemble(file);
    long allocated = Allocations.current() - before;
    if (allocated > bound) {
      // once more: the first read of a format loads (and instruments) its classes
      before = Allocations.current();
      connections = reassemble(file);
      allocated = Allocations.current() - before;
      check(
          allocated <= bound,
          "allocated " + allocated + " bytes reading a capture of " + file.length + " bytes");
    }
    PreparedStatements prepared = new PreparedStatements();
    for (TcpConnection c : connections) {
      byte[] server = checkedBytes(c.serverToClient());
      byte[] client = checkedBytes(c.clientToServer());
      int serverCut = firstGap(c.serverToClient(), server.length);
      int clientCut = firstGap(c.clientToServer(), client.length);
      replay(
          Arrays.copyOf(client, clientCut),
          Arrays.copyOf(server, serverCut),
          c.startedMidStream(),
          prepared);
      if (serverCut < server.length) {
        replay(null, Arrays.copyOfRange(server, serverCut, server.length), true, prepared);
      }
    }
  }

  /** Reads and reassembles, as far as the file is well formed. */
  private static List<TcpConnection> reassemble(byte[] file) throws IOException {
    TcpReassembler reassembler = new TcpReassembler(0, 1 << 16);
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(file))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        check(p.data().length <= file.length, "a packet larger than the file");
        reassembler.add(p);
      }
    } catch (PcapFormatException e) {
      check(
          e.offset() >= 0 && e.offset() <= file.length,
          "offset " + e.offset() + " outside a file of " + file.length);
      check(e.getMessage() != null && e.reason() != null, "message");
    }
    List<TcpConnection> connections = reassembler.finish();
    reassembler.warnings();
    return connections;
  }

  /** The stream's bytes, after checking they agree with its length, gaps and chunks. */
  private static byte[] checkedBytes(TcpStream stream) {
    byte[] bytes = stream.bytes();
    check(bytes.length == stream.length(), "bytes " + bytes.length + " != " + stream.length());
    long at = 0;
    for (TcpStream.Gap g : stream.gaps()) {
      // a gap's offset indexes bytes(), which holds only captured bytes
      check(
          g.offset() >= at && g.offset() <= bytes.length && g.length() > 0,
          "gap " + g + " in " + bytes.length + " bytes");
      at = g.offset();
    }
    at = 0;
    for (TcpStream.Chunk c : stream.chunks()) {
      check(
          c.offset() >= at && c.length() >= 0 && c.offset() + c.length() <= bytes.length,
          "chunk " + c + " in " + bytes.length + " bytes");
      at = c.offset();
    }
    return bytes;
  }

  private static int firstGap(TcpStream stream, int length) {
    return stream.gaps().isEmpty() ? length : (int) stream.gaps().get(0).offset();
  }

  private static void replay(
      byte[] client, byte[] server, boolean midStream, PreparedStatements prepared) {
    CheckingSink sink = new CheckingSink(new CountingSink());
    try {
      ConnectionReplay.replay(
          "fuzz",
          client,
          server,
          midStream,
          prepared,
          ParseLimits.defaults(),
          new ReplayListener() {
            @Override
            public RowSink sinkFor(Response response) {
              return sink;
            }

            @Override
            public void onResult(Response response, CqlResult result) {}

            @Override
            public void onError(Response response, CqlFrameException error) {
              check(!error.connectionLevel(), "connection-level error as a result: " + error);
            }
          });
    } catch (CqlFrameException e) {
      // ConnectionReplay turns a foreign exception from the pipeline into this message
      check(
          e.getMessage() != null && !e.getMessage().startsWith("replay failed: "),
          "a foreign exception in the pipeline: " + e.getMessage());
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  @Test
  void randomBytesRaiseOnlyTheFormatException() {
    Random random = new Random(20240611);
    byte[][] heads = {
      {(byte) 0xd4, (byte) 0xc3, (byte) 0xb2, (byte) 0xa1, 2, 0, 4, 0},
      {(byte) 0xa1, (byte) 0xb2, 0x3c, 0x4d, 0, 2, 0, 4},
      {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0},
      {}
    };
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
    PcapFiles.Pcapng file =
        new PcapFiles.Pcapng(ByteOrder.BIG_ENDIAN)
            .iface(LinkType.ETHERNET, 0, 9, 3)
            .iface(LinkType.RAW, 64, 0x80 | 30, 0)
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
