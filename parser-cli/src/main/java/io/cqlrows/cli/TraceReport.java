package io.cqlrows.cli;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.request.Consistency;
import io.cqlrows.netty.request.QueryParameters;
import java.io.PrintStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code --tracing}: the trace of a request as cqlsh's {@code TRACING ON} shows it, read from
 * {@code system_traces} once the coordinator has finished writing it: {@code Tracing session: ID},
 * a table of the events (activity, source, elapsed microseconds at the source, thread), then the
 * coordinator and the request's duration. The coordinator writes a trace after it answers, so the
 * session is read again every {@value #POLL_MILLIS} ms until its duration is there or the wait
 * ends; then whatever events are there are printed, with a line saying the trace is incomplete.
 * Server text reaches the terminal escaped ({@link TableSink}, {@link TerminalText}).
 */
final class TraceReport {
  /** How often the session row is read while it is incomplete. */
  static final long POLL_MILLIS = 100;

  /** Waits for a request's answer (the command's deadlines apply). */
  interface Await {
    QueryResult await(CompletableFuture<QueryResult> future)
        throws ExecutionException, InterruptedException;
  }

  private final CqlClient client;
  private final PrintStream out;
  private final Consistency consistency;
  private final Duration wait;
  private final Await await;

  TraceReport(
      CqlClient client, PrintStream out, Consistency consistency, Duration wait, Await await) {
    this.client = client;
    this.out = out;
    this.consistency = consistency;
    this.wait = wait;
    this.await = await;
  }

  /** Prints the trace of session {@code id}. */
  void print(UUID id) throws ExecutionException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    Row session = null;
    while (true) { // bounded: by the deadline
      RowsCollector sessions = new RowsCollector();
      await.await(
          client.query(
              "SELECT coordinator, duration, request FROM system_traces.sessions"
                  + " WHERE session_id = "
                  + id,
              sessions,
              QueryParameters.of(consistency)));
      List<Row> rows = sessions.rows();
      if (!rows.isEmpty() && !rows.get(0).isNull("duration")) {
        session = rows.get(0);
        break;
      }
      if (System.nanoTime() - deadline >= 0) {
        break;
      }
      Thread.sleep(POLL_MILLIS);
    }
    out.println();
    out.println("Tracing session: " + id);
    TableSink events = TableSink.statementPages(out, false);
    await.await(
        client.query(
            "SELECT activity, source, source_elapsed, thread FROM system_traces.events"
                + " WHERE session_id = "
                + id,
            events,
            QueryParameters.of(consistency)));
    if (session == null) {
      out.println(
          "the trace was not complete after "
              + wait.toSeconds()
              + " s: these are its first events");
    } else {
      InetAddress coordinator = (InetAddress) session.getObject("coordinator");
      out.println(
          "Request complete: "
              + session.getInt("duration")
              + " us, coordinator "
              + (coordinator == null ? "unknown" : coordinator.getHostAddress()));
    }
    out.println();
  }
}
