package io.cqlrows.core;

/**
 * The root of the exceptions cqlrows throws for input it cannot accept. {@link CqlParseException}
 * rejects a RESULT body (a length, a count, a type, a value); in {@code cqlrows-netty}, {@code
 * io.cqlrows.netty.frame.CqlFrameException} rejects a frame, a segment or a connection's byte
 * stream. Each carries what was wrong, as a {@link #reason()} of its own, and where it was found (a
 * byte offset and, where known, the stream, row and column); its message is derived from those
 * fields. Callers and tests should look at the fields, not at the message.
 *
 * <p>Each subclass declares its reasons as a nested {@code Reason} enum that implements {@link
 * Reason}, and overrides {@link #reason()} to return that enum: code that holds the subclass gets
 * its constants ({@code switch (e.reason())}), code that holds a {@code CqlException} gets a {@link
 * Reason} it can name.
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

  /**
   * What was wrong.
   *
   * @return a constant of the subclass's own {@code Reason} enum, never {@code null}
   */
  public abstract Reason reason();

  /**
   * What a {@link CqlException} reports as wrong. The implementations are the {@code Reason} enums
   * of the subclasses ({@link CqlParseException.Reason}, and in the other modules those of {@code
   * CqlFrameException}, {@code CqlConnectionException} and {@code ArrowMappingException}); each
   * constant is one kind of problem.
   */
  public interface Reason {
    /**
     * The constant's name, as declared: {@code TRUNCATED}, {@code CRC32_MISMATCH}. Names are
     * upper-case with underscores, and two reasons of different subclasses may share one.
     *
     * @return the name of the enum constant
     */
    String name();
  }
}
