package io.cqlrows.core;

/**
 * The root of the exceptions cqlrows throws for input it cannot accept. {@link CqlParseException}
 * rejects a RESULT body (a length, a count, a type, a value); in {@code cqlrows-netty}, {@code
 * io.cqlrows.netty.frame.CqlFrameException} rejects a frame, a segment or a connection's byte
 * stream. Each carries what was wrong, as a {@link #reason()} of its own, and where it was found (a
 * byte offset and, where known, the stream, row and column); its message is derived from those
 * fields. Callers and tests should look at the fields, not at the message.
 *
 * <p>Errors cqlrows reports about its own use (an argument out of range, a call in the wrong state)
 * are the JDK's {@link IllegalArgumentException} and {@link IllegalStateException}, and errors the
 * server reports are responses, not exceptions of this hierarchy.
 */
public abstract class CqlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * For subclasses.
   *
   * @param message the message, or {@code null} when the subclass derives it in {@link
   *     #getMessage()}
   * @param cause the underlying error, or {@code null}
   */
  protected CqlException(String message, Throwable cause) {
    super(message, cause, false, true);
  }

  /** What was wrong: the subclass's own {@code Reason} constant. */
  public abstract Enum<?> reason();
}
