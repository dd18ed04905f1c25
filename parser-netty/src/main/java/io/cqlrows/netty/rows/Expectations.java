package io.cqlrows.netty.rows;

import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.Arrays;
import java.util.Objects;

/**
 * The registrations of a {@link RowsFrameHandler}: what to do with the next response on each
 * stream. Not thread-safe: used on the handler's event loop.
 */
final class Expectations {
  /** What to do with the next response on one stream. */
  record Expectation(RowSink sink, ResultColumns preparedColumns, boolean streaming) {}

  private final IntObjectMap<Expectation> byStream = new IntObjectHashMap<>();

  /**
   * Registers {@code expectation} for the next response on {@code streamId}.
   *
   * @throws IllegalArgumentException if the stream id is not 0-32767
   * @throws IllegalStateException if the stream already has a registration
   */
  void register(int streamId, Expectation expectation) {
    if (streamId < 0 || streamId > Short.MAX_VALUE) {
      throw new IllegalArgumentException("streamId: " + streamId + " (expected: 0-32767)");
    }
    Objects.requireNonNull(expectation.sink(), "sink");
    if (byStream.containsKey(streamId)) {
      throw new IllegalStateException("stream " + streamId + " already has a registered sink");
    }
    byStream.put(streamId, expectation);
  }

  /** The registration of {@code streamId}, left in place, or null. */
  Expectation get(int streamId) {
    return byStream.get(streamId);
  }

  /** Removes and returns the registration of {@code streamId}, or null. */
  Expectation remove(int streamId) {
    return byStream.remove(streamId);
  }

  int size() {
    return byStream.size();
  }

  /** Removes every registration; returns their stream ids in ascending order. */
  int[] removeAll() {
    int[] streams = new int[byStream.size()];
    int i = 0;
    for (int stream : byStream.keySet()) {
      streams[i++] = stream;
    }
    byStream.clear();
    Arrays.sort(streams);
    return streams;
  }
}
