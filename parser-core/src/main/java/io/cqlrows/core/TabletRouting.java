package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.value.TupleValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The tablet routing information ScyllaDB attaches to a response under {@link
 * ProtocolFeatures#TABLETS_ROUTING_V1} when a request reached a node or shard that does not own its
 * tablet: the token range {@code (firstToken, lastToken]} and the tablet's replicas. On the wire it
 * is the custom payload entry {@value #PAYLOAD_KEY}, a serialized {@code tuple<bigint, bigint,
 * list<frozen<tuple<uuid, int>>>>}.
 *
 * <p>A driver that routes by tablet replaces every cached tablet whose range overlaps this one;
 * cqlrows only decodes it. Immutable.
 *
 * @param firstToken the token before the range (exclusive)
 * @param lastToken the last token of the range (inclusive)
 * @param replicas the tablet's replicas, in the server's order
 */
public record TabletRouting(long firstToken, long lastToken, List<Replica> replicas) {
  /** The custom payload key. */
  public static final String PAYLOAD_KEY = "tablets-routing-v1";

  private static final CqlType REPLICA_TYPE =
      new TupleType(List.of(NativeType.UUID, NativeType.INT));
  private static final TupleType TYPE =
      new TupleType(
          List.of(NativeType.BIGINT, NativeType.BIGINT, new ListType(REPLICA_TYPE, true)));

  /** Shared: the deserializers of these types keep no state between calls. */
  private static final ValueDeserializer DESERIALIZER =
      DeserializerFactory.forType(TYPE, ParseLimits.defaults());

  /**
   * One replica of a tablet.
   *
   * @param hostId the node's host id
   * @param shard the shard (CPU core) of that node that owns the tablet
   */
  public record Replica(UUID hostId, int shard) {
    /** Checks the host id. */
    public Replica {
      Objects.requireNonNull(hostId, "hostId");
    }
  }

  /** Copies the replicas. */
  public TabletRouting {
    replicas = List.copyOf(replicas);
  }

  /**
   * The routing information of a response's custom payload, or {@code null} if it has no {@value
   * #PAYLOAD_KEY} entry.
   *
   * @throws CqlParseException if the entry is malformed
   */
  public static TabletRouting fromPayload(Map<String, byte[]> customPayload) {
    if (!customPayload.containsKey(PAYLOAD_KEY)) {
      return null;
    }
    return decode(customPayload.get(PAYLOAD_KEY));
  }

  /**
   * Decodes a {@value #PAYLOAD_KEY} value. Every length is checked as in a RESULT body; a NULL or
   * missing component, or a NULL replica, is {@link Reason#INVALID_VALUE}. Offsets in errors are
   * from the start of the value.
   *
   * @param value the payload value (a {@code null} value is an error); not modified
   * @throws CqlParseException if the value is malformed
   */
  public static TabletRouting decode(byte[] value) {
    if (value == null) {
      throw CqlParseException.at(Reason.INVALID_VALUE, PAYLOAD_KEY, -1, TYPE, "a null value");
    }
    ByteBuf buf = Unpooled.wrappedBuffer(value);
    try {
      Object decoded = DESERIALIZER.decodeElement(buf, 0, value.length);
      return of((TupleValue) decoded);
    } catch (CqlParseException e) {
      throw e.withContext(buf, 0, -1, -1, PAYLOAD_KEY, TYPE);
    } finally {
      buf.release();
    }
  }

  private static TabletRouting of(TupleValue t) {
    long first = required(t.get(0), Long.class, "first token");
    long last = required(t.get(1), Long.class, "last token");
    List<?> list = required(t.get(2), List.class, "replicas");
    List<Replica> replicas = new ArrayList<>(list.size());
    for (Object o : list) {
      TupleValue r = required(o, TupleValue.class, "replica");
      replicas.add(
          new Replica(
              required(r.get(0), UUID.class, "replica host id"),
              required(r.get(1), Integer.class, "replica shard")));
    }
    return new TabletRouting(first, last, replicas);
  }

  /** A decoded component; NULL, not-set and missing components are errors. */
  private static <T> T required(Object value, Class<T> type, String what) {
    if (!type.isInstance(value)) {
      throw CqlParseException.at(
          Reason.INVALID_VALUE, PAYLOAD_KEY, -1, TYPE, what + " is missing, null or not set");
    }
    return type.cast(value);
  }
}
