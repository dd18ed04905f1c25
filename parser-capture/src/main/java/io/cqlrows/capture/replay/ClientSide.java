package io.cqlrows.capture.replay;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * The client side of a replayed connection: its requests waiting for their responses, per stream,
 * and the extensions its STARTUP named. At most {@link #MAX_WAITING} requests wait; over that, the
 * oldest is given up as unanswered. Single-threaded.
 */
final class ClientSide {
  /** Requests that wait for a response, at most. */
  static final int MAX_WAITING = 1 << 16;

  /** A request and whether it was answered or given up. */
  private static final class Waiting {
    final Request request;
    boolean done;

    Waiting(Request request) {
      this.request = request;
    }
  }

  private final Map<Integer, ArrayDeque<Waiting>> byStream = new HashMap<>();

  /** Every waiting request in arrival order; answered ones are skipped when met. */
  private final ArrayDeque<Waiting> order = new ArrayDeque<>();

  private int waiting;
  private final ReplayListener listener;

  /** The assumed features until a STARTUP is read, then that STARTUP's. */
  ProtocolFeatures features;

  ClientSide(ProtocolFeatures assumed, ReplayListener listener) {
    this.features = Objects.requireNonNull(assumed, "assumed");
    this.listener = listener;
  }

  /** A frame the client sent, borrowed, whose last byte was captured at {@code timestampNanos}. */
  void frame(Frame f, long timestampNanos) {
    listener.onFrame(true, f);
    if (!f.isResponse()) {
      add(RequestReader.read(f, features, timestampNanos));
    }
  }

  private void add(Request r) {
    if (r.opcode() == Opcode.STARTUP) {
      // the requests after it are written with the extensions it names
      features = ProtocolFeatures.fromStartup(r.options());
    }
    Waiting w = new Waiting(r);
    byStream.computeIfAbsent(r.streamId(), s -> new ArrayDeque<>()).add(w);
    order.add(w);
    if (++waiting > MAX_WAITING) {
      giveUpOldest();
    }
    if (order.size() > 2 * MAX_WAITING) {
      order.removeIf(o -> o.done); // answered ones behind an old unanswered one
    }
  }

  private void giveUpOldest() {
    Waiting w;
    while ((w = order.poll()) != null && w.done) {
      // answered already
    }
    if (w != null) {
      ArrayDeque<Waiting> queue = byStream.get(w.request.streamId());
      queue.remove(w); // its head: streams are answered first-in, first-out
      unanswered(w);
    }
  }

  /**
   * The request that a response on {@code stream}, whose last byte was captured at {@code
   * timestampNanos}, answers: the oldest waiting on that stream, unless a later one was sent before
   * the response too (then the earlier ones were answered outside the capture). Null if no request
   * was sent before the response (its request is not in the capture).
   */
  Request answer(int stream, long timestampNanos) {
    ArrayDeque<Waiting> queue = byStream.get(stream);
    if (queue == null || queue.isEmpty()) {
      return null;
    }
    if (timestampNanos != 0) {
      while (queue.size() >= 2 && sentBy(second(queue), timestampNanos)) {
        unanswered(queue.poll());
      }
      Waiting head = queue.peek();
      if (head.request.timestampNanos() > timestampNanos) {
        return null;
      }
    }
    Waiting head = queue.poll();
    head.done = true;
    waiting--;
    while (!order.isEmpty() && order.peek().done) {
      order.poll();
    }
    return head.request;
  }

  private static boolean sentBy(Waiting w, long timestampNanos) {
    return w.request.timestampNanos() != 0 && w.request.timestampNanos() <= timestampNanos;
  }

  private static Waiting second(ArrayDeque<Waiting> queue) {
    Iterator<Waiting> it = queue.iterator();
    it.next();
    return it.next();
  }

  private void unanswered(Waiting w) {
    w.done = true;
    waiting--;
    listener.onUnanswered(w.request);
  }

  /** Requests that wait for their responses. */
  int waiting() {
    return waiting;
  }

  /** The connection ended: every request still waiting is unanswered, in the order sent. */
  void end() {
    for (Waiting w; (w = order.poll()) != null; ) {
      if (!w.done) {
        unanswered(w);
      }
    }
    byStream.clear();
  }
}
