package io.cqlrows.netty.rows;

import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Objects;

/**
 * The stream ids of one connection, 0 to 32767 (native_protocol_v5.spec section 2.4.1.3), and what
 * each one in use waits for. An id is in use from its registration until its response arrives (or
 * fails); an <em>orphaned</em> id belongs to a request that timed out or was cancelled, and stays
 * in use, with nothing registered, until the late response arrives or the connection ends, so that
 * it is never reused while the server may still answer it. Ids are handed out round-robin from
 * after the last one, so a just-released id is not reused at once.
 *
 * <p>Not thread-safe: used on the handler's event loop.
 */
final class Expectations {
  /** Number of ids: 0 to 32767. */
  static final int COUNT = Short.MAX_VALUE + 1;

  /**
   * What to do with the next response on one stream.
   *
   * @param request the in-flight request whose future the response completes, or null for a
   *     registration made with {@code expect} (the response is fired downstream)
   */
  record Expectation(
      RowSink sink, ResultColumns preparedColumns, boolean streaming, InFlightRequest request) {}

  private final IntObjectMap<Expectation> byStream = new IntObjectHashMap<>();
  private final BitSet used = new BitSet(COUNT);
  private final BitSet orphaned = new BitSet(COUNT);
  private int inUse;
  private int orphans;
  private int next;

  /**
   * Registers {@code expectation} for the next response on {@code streamId}, which must be free.
   *
   * @throws IllegalArgumentException if the stream id is not 0-32767
   * @throws IllegalStateException if the id is in use (registered, or orphaned)
   */
  void register(int streamId, Expectation expectation) {
    if (streamId < 0 || streamId >= COUNT) {
      throw new IllegalArgumentException("streamId: " + streamId + " (expected: 0-32767)");
    }
    Objects.requireNonNull(expectation.sink(), "sink");
    if (byStream.containsKey(streamId)) {
      throw new IllegalStateException("stream " + streamId + " already has a registered sink");
    }
    if (used.get(streamId)) {
      throw new IllegalStateException(
          "stream "
              + streamId
              + " is in use by a request that"
              + " timed out or was cancelled and may still be answered");
    }
    take(streamId);
    byStream.put(streamId, expectation);
  }

  /** A free id, now in use with nothing registered yet, or -1 if all 32768 are in use. */
  int allocate() {
    if (inUse == COUNT) {
      return -1;
    }
    int id = used.nextClearBit(next);
    if (id >= COUNT) {
      id = used.nextClearBit(0);
    }
    take(id);
    next = id + 1 == COUNT ? 0 : id + 1;
    return id;
  }

  /** Puts the expectation of an id {@link #allocate()} returned. */
  void put(int streamId, Expectation expectation) {
    byStream.put(streamId, expectation);
  }

  private void take(int id) {
    used.set(id);
    inUse++;
  }

  /** The registration of {@code streamId}, left in place, or null. */
  Expectation get(int streamId) {
    return byStream.get(streamId);
  }

  /** Removes and returns the registration of {@code streamId}, freeing its id; or null. */
  Expectation remove(int streamId) {
    Expectation e = byStream.remove(streamId);
    if (e != null) {
      release(streamId);
    }
    return e;
  }

  /**
   * Removes the registration of {@code streamId} and keeps its id in use, orphaned, until {@link
   * #adopt} or {@link #clear}.
   *
   * @return the number of orphaned ids now
   */
  int orphan(int streamId) {
    byStream.remove(streamId);
    if (used.get(streamId) && !orphaned.get(streamId)) {
      orphaned.set(streamId);
      orphans++;
    }
    return orphans;
  }

  /** Whether {@code streamId} is orphaned. */
  boolean isOrphaned(int streamId) {
    return streamId >= 0 && streamId < COUNT && orphaned.get(streamId);
  }

  /** Frees an orphaned id: its late response arrived. */
  void adopt(int streamId) {
    if (isOrphaned(streamId)) {
      orphaned.clear(streamId);
      orphans--;
      release(streamId);
    }
  }

  /** Frees an id {@link #allocate()} returned whose request was never registered or written. */
  void release(int streamId) {
    if (streamId >= 0 && streamId < COUNT && used.get(streamId)) {
      used.clear(streamId);
      inUse--;
    }
  }

  /** The number of registrations. */
  int size() {
    return byStream.size();
  }

  /** The number of orphaned ids. */
  int orphans() {
    return orphans;
  }

  /** The number of ids in use: registered, allocated or orphaned. */
  int inUse() {
    return inUse;
  }

  /** The registered stream ids, in ascending order. */
  int[] registeredStreams() {
    int[] streams = new int[byStream.size()];
    int i = 0;
    for (int stream : byStream.keySet()) {
      streams[i++] = stream;
    }
    Arrays.sort(streams);
    return streams;
  }

  /** Removes every registration and frees every id, orphans included. */
  void clear() {
    byStream.clear();
    used.clear();
    orphaned.clear();
    inUse = 0;
    orphans = 0;
  }
}
