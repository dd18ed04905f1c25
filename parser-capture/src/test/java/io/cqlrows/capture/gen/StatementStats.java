package io.cqlrows.capture.gen;

import java.util.Map;

/**
 * What a synthetic capture holds for one {@link StatementKey}: its requests and their responses. A
 * response is counted (in {@code responses}, {@code errorsByCode}, {@code rows}, {@code
 * responseBytes}, {@code pages} and the response times) only if all its bytes are in the file; a
 * response with a segment missing from the file counts in {@code lost} instead, and a request the
 * file holds no response to in {@code unanswered}, so that {@code requests == responses + lost +
 * unanswered}. Immutable.
 *
 * @param requestsByOpcode the requests by opcode ({@link SyntheticCapture#QUERY}, {@link
 *     SyntheticCapture#PREPARE}, {@link SyntheticCapture#EXECUTE}, {@link SyntheticCapture#BATCH})
 * @param responses the requests answered by a complete response in the file (errors included)
 * @param errorsByCode the ERROR responses by error code ({@link SyntheticCapture#INVALID}, {@link
 *     SyntheticCapture#READ_TIMEOUT}, {@link SyntheticCapture#UNAVAILABLE})
 * @param rows the sum of the {@code rows_count} of the Rows results
 * @param responseBytes the sum of {@code 9 + body length} of the response envelopes
 * @param pages the number of Rows results (each page counts once)
 * @param minResponseNanos the shortest response time, 0 if none; a response time runs from the
 *     timestamp of the first packet in the file carrying the request's last byte to that of the
 *     first packet carrying the response's last byte
 * @param maxResponseNanos the longest response time, 0 if none
 * @param sumResponseNanos the sum of the response times
 * @param unanswered the requests with no response in the file (the connection ended first)
 * @param lost the responses with bytes missing from the file (a lost segment), not decodable
 */
public record StatementStats(
    Map<Integer, Long> requestsByOpcode,
    long responses,
    Map<Integer, Long> errorsByCode,
    long rows,
    long responseBytes,
    long pages,
    long minResponseNanos,
    long maxResponseNanos,
    long sumResponseNanos,
    long unanswered,
    long lost) {
  /** Copies the maps. */
  public StatementStats {
    requestsByOpcode = Map.copyOf(requestsByOpcode);
    errorsByCode = Map.copyOf(errorsByCode);
  }

  /** All the requests of the statement. */
  public long requests() {
    return requestsByOpcode.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The requests of one opcode. */
  public long requests(int opcode) {
    return requestsByOpcode.getOrDefault(opcode, 0L);
  }

  /** All the ERROR responses. */
  public long errors() {
    return errorsByCode.values().stream().mapToLong(Long::longValue).sum();
  }
}
