package io.cqlrows.capture.pcap;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TcpFlowsTest {
  /** What a listener heard, in order. */
  private static final class Events implements TcpFlows.Listener {
    final List<String> events = new ArrayList<>();
    final ByteArrayOutputStream client = new ByteArrayOutputStream();
    final ByteArrayOutputStream server = new ByteArrayOutputStream();
    final List<Long> clientGaps = new ArrayList<>();
    final List<Long> serverGaps = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    int closed;

    @Override
    public void onData(TcpFlow flow, boolean fromClient, byte[] d, int off, int len, long ts) {
      (fromClient ? client : server).write(d, off, len);
      events.add((fromClient ? "c:" : "s:") + new String(d, off, len, US_ASCII));
    }

    @Override
    public void onGap(TcpFlow flow, boolean fromClient, long length) {
      (fromClient ? clientGaps : serverGaps).add(length);
      events.add((fromClient ? "c-gap:" : "s-gap:") + length);
    }

    @Override
    public void onClose(TcpFlow flow) {
      closed++;
      events.add("close");
    }

    @Override
    public void onNote(TcpFlow flow, String note) {
      notes.add(note);
    }
  }

  private static Events run(Conversation c, TcpFlows.Limits limits) {
    Events e = new Events();
    TcpFlows flows = new TcpFlows(0, limits, e);
    for (PcapPacket p : c.packets()) {
      flows.add(p);
      assertTrue(flows.bufferedBytes() <= limits.maxBufferedBytes(), "over the total bound");
    }
    flows.finish();
    return e;
  }

  @Test
  void aResponseWaitsForTheRequestSegmentThatComesLateInTheFile() {
    Conversation c =
        new Conversation()
            .handshake()
            .client(5, "WORLD") // the request's second segment first
            .serverAcks(10) // the server got both
            .server(0, "answer")
            .client(0, "HELLO"); // the first segment, late in the file
    Events e = run(c, TcpFlows.Limits.DEFAULT);

    assertEquals(List.of("c:HELLO", "c:WORLD", "s:answer", "close"), e.events);
    assertEquals(List.of(), e.clientGaps);
  }

  @Test
  void aServerHoleThatTheClientAcknowledgedStillFillsFromTheFile() {
    Conversation c =
        new Conversation()
            .handshake()
            .client(0, "q")
            .server(509, "second part")
            .clientAcks(520)
            .server(0, "x".repeat(509));
    Events e = run(c, TcpFlows.Limits.DEFAULT);

    assertEquals("x".repeat(509) + "second part", e.server.toString(US_ASCII));
    assertEquals(List.of(), e.serverGaps);
  }

  @Test
  void aHoleOverThePerDirectionLimitIsGivenUpWithANote() {
    Conversation c =
        new Conversation().handshake().client(0, "abc").client(5, "fghij").client(10, "klmno");
    Events e = run(c, new TcpFlows.Limits(10, 8, 1 << 20));

    assertEquals("abcfghijklmno", e.client.toString(US_ASCII));
    assertEquals(List.of(2L), e.clientGaps);
    assertEquals(1, e.notes.size());
  }

  @Test
  void theTotalLimitGivesUpTheHoleOfTheConnectionThatKeepsTheMost() {
    List<PcapPacket> packets = new ArrayList<>();
    new Conversation(Conversation.CLIENT, Conversation.SERVER, 1000, 5000, packets)
        .handshake()
        .client(0, "a")
        .client(2, "cccccccc");
    new Conversation(LinkLayers.address("127.0.0.3", 40000), Conversation.SERVER, 7, 9, packets)
        .handshake()
        .client(0, "A")
        .client(2, "CCCC");
    Events e = new Events();
    TcpFlows flows = new TcpFlows(0, new TcpFlows.Limits(10, 100, 10), e);
    for (PcapPacket p : packets) {
      flows.add(p);
      assertTrue(flows.bufferedBytes() <= 10);
    }
    // 8 + 4 bytes behind holes is over 10: the first connection's hole (8 bytes kept) went
    assertEquals(List.of("c:a", "c:A", "c-gap:1", "c:cccccccc"), e.events);
    assertEquals(4, flows.bufferedBytes());
    flows.finish();
    assertEquals(
        List.of("c:a", "c:A", "c-gap:1", "c:cccccccc", "close", "c-gap:1", "c:CCCC", "close"),
        e.events);
  }

  @Test
  void theLeastRecentlyActiveConnectionIsClosedEarlyOverTheOpenLimit() {
    List<PcapPacket> packets = new ArrayList<>();
    Conversation a =
        new Conversation(Conversation.CLIENT, Conversation.SERVER, 1000, 5000, packets);
    Conversation b =
        new Conversation(
            LinkLayers.address("127.0.0.3", 40000), Conversation.SERVER, 7, 9, packets);
    Conversation c =
        new Conversation(
            LinkLayers.address("127.0.0.4", 40001), Conversation.SERVER, 3, 4, packets);
    a.handshake().client(0, "a1");
    b.handshake().client(0, "b1");
    a.client(2, "a2"); // a is more recent than b now
    c.handshake().client(0, "c1");
    Events e = new Events();
    TcpFlows flows = new TcpFlows(0, new TcpFlows.Limits(2, 100, 100), e);
    packets.forEach(flows::add);
    assertEquals(1, e.closed, "b closed early");
    assertTrue(flows.warnings().stream().anyMatch(w -> w.contains("closed early")));
    flows.finish();
    assertEquals(3, e.closed);
    assertEquals(List.of("c:a1", "c:b1", "c:a2", "close", "c:c1", "close", "close"), e.events);
  }

  @Test
  void aConnectionEndsAtItsFinExchangeAndItsLatePacketsAreIgnored() {
    Conversation c =
        new Conversation()
            .handshake()
            .client(0, "hi")
            .server(0, "yo")
            .clientFin(2)
            .serverFin(2)
            .clientAcks(3)
            .client(0, "hi"); // a late retransmission
    Events e = run(c, TcpFlows.Limits.DEFAULT);
    assertEquals(List.of("c:hi", "s:yo", "close"), e.events);
  }

  /**
   * Random streams cut into segments, some sent twice, some overlapping their neighbours with the
   * same bytes, some swapped with the next one (with the peer's acknowledgment of both in between),
   * some never sent: the bytes handed on are the bytes covered by some segment, in order, and the
   * gaps are the runs no segment covers, as an independent coverage map says.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void reassemblyEqualsTheCoverageOfTheSegmentsInTheFile(int seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] stream = new byte[20_000];
    for (int i = 0; i < stream.length; i++) {
      stream[i] = (byte) ('a' + r.nextInt(26));
    }
    List<int[]> segments = new ArrayList<>(); // {offset, length}
    for (int at = 0; at < stream.length; ) {
      int n = Math.min(stream.length - at, 1 + r.nextInt(1448));
      segments.add(new int[] {at, n});
      at += n;
    }
    boolean[] covered = new boolean[stream.length];
    List<int[]> sent = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      int[] s = segments.get(i);
      boolean last = i == segments.size() - 1;
      if (!last && r.nextInt(20) == 0) {
        continue; // lost
      }
      sent.add(s);
      if (r.nextInt(15) == 0) {
        sent.add(s); // retransmitted
      }
      if (r.nextInt(15) == 0 && s[0] > 10 && s[0] + s[1] + 10 <= stream.length) {
        sent.add(new int[] {s[0] - 10, s[1] + 20}); // overlapping both neighbours
      }
    }
    for (int i = 0; i + 1 < sent.size(); i++) {
      if (r.nextInt(8) == 0) {
        Collections.swap(sent, i, i + 1);
        i++;
      }
    }
    for (int[] s : sent) {
      for (int i = s[0]; i < s[0] + s[1]; i++) {
        covered[i] = true;
      }
    }
    Conversation c = new Conversation(1 << 31, 77).handshake();
    long acked = 0;
    for (int[] s : sent) {
      c.client(s[0], java.util.Arrays.copyOfRange(stream, s[0], s[0] + s[1]));
      if (r.nextInt(3) == 0) {
        acked = Math.max(acked, s[0] + s[1]);
        c.serverAcks(acked); // may acknowledge bytes that come later in the file
      }
    }
    Events e = run(c, TcpFlows.Limits.DEFAULT);

    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    List<Long> gaps = new ArrayList<>();
    for (int i = 0; i < stream.length; ) {
      int j = i;
      while (j < stream.length && covered[j] == covered[i]) {
        j++;
      }
      if (covered[i]) {
        expected.write(stream, i, j - i);
      } else {
        gaps.add((long) (j - i));
      }
      i = j;
    }
    assertArrayEquals(expected.toByteArray(), e.client.toByteArray());
    assertEquals(gaps, e.clientGaps);
  }
}
