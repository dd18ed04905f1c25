package io.cqlrows.core.type;

import java.util.List;
import java.util.Objects;

/**
 * A user-defined type: keyspace, name and fields in declaration order (native_protocol_v5.spec
 * section 4.2.5.2, id 0x0030; values in section 6).
 *
 * <p>Values may carry <em>fewer</em> fields than declared (a frozen value written before {@code
 * ALTER TYPE ... ADD}); the missing trailing fields read as NULL.
 *
 * @param keyspace the keyspace, in internal (unquoted) form
 * @param name the type name, in internal (unquoted) form
 * @param fields the fields, in declaration order (an unmodifiable copy)
 * @param frozen whether the type was explicitly marked frozen (only known from class names)
 */
public record UdtType(String keyspace, String name, List<Field> fields, boolean frozen)
    implements CqlType {

  /** Copies the fields. */
  public UdtType {
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(name, "name");
    fields = List.copyOf(fields);
  }

  /**
   * One field of a UDT.
   *
   * @param name the field name, internal (unquoted) form
   * @param type the field type
   */
  public record Field(String name, CqlType type) {
    /** Checks both parts are present. */
    public Field {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
    }
  }

  @Override
  public int fixedLengthInVector() {
    return -1;
  }

  /**
   * {@code ks.name}, quoting identifiers that need it; a frozen UDT (only from class names) prints
   * as {@code frozen<"ks"."name">}, as the Java driver does.
   */
  @Override
  public String toString() {
    if (frozen) {
      return "frozen<" + TypeNames.quote(keyspace) + "." + TypeNames.quote(name) + ">";
    }
    return TypeNames.quoteIfNeeded(keyspace) + "." + TypeNames.quoteIfNeeded(name);
  }
}
