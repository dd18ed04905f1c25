package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.testing.CqlBytes;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The {@code tablets-routing-v1} custom payload as ScyllaDB's transport/server.cc writes it
 * (docs/dev/protocol-extensions.md, "Tablets routing v1"): the value of {@code tuple<bigint,
 * bigint, list<tuple<uuid, int>>>} serialized as a tuple (each component an {@code [int]}-prefixed
 * value), the list as an {@code [int]} count of {@code [int]}-prefixed tuples.
 */
class TabletRoutingTest {
  private static final UUID HOST_A = UUID.fromString("8d2bd9a5-6a02-4d85-8b2f-3e1c0f6a7b90");
  private static final UUID HOST_B = UUID.fromString("11111111-2222-4333-8444-555555555555");

  /** A serialized routing value. */
  static byte[] routing(long first, long last, Object... hostAndShard) {
    CqlBytes list = CqlBytes.create().int32(hostAndShard.length / 2);
    for (int i = 0; i < hostAndShard.length; i += 2) {
      UUID host = (UUID) hostAndShard[i];
      byte[] replica =
          CqlBytes.create()
              .int32(16)
              .int64(host.getMostSignificantBits())
              .int64(host.getLeastSignificantBits())
              .int32(4)
              .int32((Integer) hostAndShard[i + 1])
              .toArray();
      list.int32(replica.length).raw(replica);
    }
    byte[] replicas = list.toArray();
    return CqlBytes.create()
        .int32(8)
        .int64(first)
        .int32(8)
        .int64(last)
        .int32(replicas.length)
        .raw(replicas)
        .toArray();
  }

  @Test
  void decodesTheTokenRangeAndTheReplicas() {
    TabletRouting t = TabletRouting.decode(routing(Long.MIN_VALUE, -1L, HOST_A, 3, HOST_B, 0));
    assertEquals(Long.MIN_VALUE, t.firstToken());
    assertEquals(-1L, t.lastToken());
    assertEquals(
        List.of(new TabletRouting.Replica(HOST_A, 3), new TabletRouting.Replica(HOST_B, 0)),
        t.replicas());
    assertEquals(List.of(), TabletRouting.decode(routing(0, 1)).replicas());
  }

  @Test
  void fromPayloadFindsItsKeyAndIgnoresTheRest() {
    Map<String, byte[]> payload = new HashMap<>();
    payload.put("other", new byte[] {1, 2, 3});
    assertNull(TabletRouting.fromPayload(payload));
    payload.put(TabletRouting.PAYLOAD_KEY, routing(5, 10, HOST_A, 1));
    assertEquals(
        new TabletRouting(5, 10, List.of(new TabletRouting.Replica(HOST_A, 1))),
        TabletRouting.fromPayload(payload));
  }

  /** Every cut of a valid value is a typed error, never another exception. */
  @Test
  void everyTruncationIsATypedError() {
    byte[] full = routing(7, 9, HOST_A, 1, HOST_B, 2);
    for (int n = 0; n < full.length; n++) {
      byte[] cut = Arrays.copyOf(full, n);
      CqlParseException e =
          assertThrows(CqlParseException.class, () -> TabletRouting.decode(cut), "cut at " + n);
      assertEquals(TabletRouting.PAYLOAD_KEY, e.columnName());
      assertTrue(
          Set.of(Reason.TRUNCATED, Reason.INVALID_VALUE).contains(e.reason()),
          n + ": " + e.reason());
    }
  }

  @Test
  void nullOrMissingComponentsAreInvalid() {
    byte[] nullLast = CqlBytes.create().int32(8).int64(1).int32(-1).int32(4).int32(0).toArray();
    assertEquals(
        Reason.INVALID_VALUE,
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(nullLast)).reason());
    byte[] notSetReplica =
        CqlBytes.create().int32(8).int64(1).int32(8).int64(2).int32(8).int32(1).int32(-2).toArray();
    assertEquals(
        Reason.INVALID_VALUE,
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(notSetReplica)).reason());
    assertEquals(
        Reason.INVALID_VALUE,
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(null)).reason());
    assertEquals(
        Reason.INVALID_VALUE,
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(new byte[0])).reason());
  }

  @Test
  void wrongWidthsAndTrailingBytesAreRejected() {
    byte[] shortToken =
        CqlBytes.create().int32(4).int32(1).int32(8).int64(2).int32(4).int32(0).toArray();
    CqlParseException e =
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(shortToken));
    assertEquals(Reason.LENGTH_MISMATCH, e.reason());
    assertEquals(4, e.offset());

    byte[] trailing = CqlBytes.create().raw(routing(1, 2)).hex("00").toArray();
    assertEquals(
        Reason.TRAILING_BYTES,
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(trailing)).reason());
  }

  @Test
  void aHostileReplicaCountIsRejectedBeforeAllocating() {
    byte[] bomb =
        CqlBytes.create()
            .int32(8)
            .int64(1)
            .int32(8)
            .int64(2)
            .int32(4)
            .int32(Integer.MAX_VALUE)
            .toArray();
    assertEquals(
        Reason.TRUNCATED,
        assertThrows(CqlParseException.class, () -> TabletRouting.decode(bomb)).reason());
  }
}
