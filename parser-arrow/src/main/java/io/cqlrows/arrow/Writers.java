package io.cqlrows.arrow;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.type.VectorType;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UuidVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Builds the {@link ValueWriter} tree for a vector made from {@link ArrowMapping}'s field of the
 * same CQL type: the dispatch happens here, once per schema, never per value, on the type's {@link
 * CellKind}, and for the types of kind {@code OBJECT} on the type itself.
 */
final class Writers {
  private Writers() {}

  static ValueWriter forVector(FieldVector vector, CqlType type, ArrowMapping mapping) {
    return switch (CellKind.of(type)) {
      case BOOLEAN -> new ScalarWriters.Bool((BitVector) vector);
      case TINYINT -> new ScalarWriters.Int8((TinyIntVector) vector);
      case SMALLINT -> new ScalarWriters.Int16((SmallIntVector) vector);
      case INT -> new ScalarWriters.Int32((org.apache.arrow.vector.IntVector) vector);
      case BIGINT -> new ScalarWriters.Int64((BigIntVector) vector);
      case FLOAT -> new ScalarWriters.Float32((Float4Vector) vector);
      case DOUBLE -> new ScalarWriters.Float64((Float8Vector) vector);
      case TIMESTAMP -> new ScalarWriters.Timestamp((TimeStampMilliTZVector) vector);
      case DATE -> new ScalarWriters.Date((DateDayVector) vector);
      case TIME -> new ScalarWriters.Time((TimeNanoVector) vector);
      case UUID -> new ScalarWriters.Uuid((UuidVector) vector);
      case TEXT -> new ScalarWriters.Utf8((VarCharVector) vector);
      case BLOB -> new ScalarWriters.Binary((VarBinaryVector) vector);
      case FLOAT_VECTOR -> new PrimitiveVectorWriter.Floats((FixedSizeListVector) vector);
      case DOUBLE_VECTOR -> new PrimitiveVectorWriter.Doubles((FixedSizeListVector) vector);
      case INT_VECTOR -> new PrimitiveVectorWriter.Ints((FixedSizeListVector) vector);
      case LONG_VECTOR -> new PrimitiveVectorWriter.Longs((FixedSizeListVector) vector);
      case OBJECT -> forObjects(vector, type, mapping);
    };
  }

  /** The writer of a type whose values are objects: {@link CellKind#OBJECT}. */
  private static ValueWriter forObjects(FieldVector vector, CqlType type, ArrowMapping mapping) {
    if (type instanceof NativeType n) {
      return forNativeObjects(vector, n, mapping);
    }
    if (type instanceof ListType || type instanceof SetType) {
      ListVector v = (ListVector) vector;
      CqlType element = type instanceof ListType l ? l.element() : ((SetType) type).element();
      return new NestedWriters.ListWriter(v, forVector(v.getDataVector(), element, mapping));
    }
    if (type instanceof MapType m) {
      MapVector v = (MapVector) vector;
      List<FieldVector> kv = ((StructVector) v.getDataVector()).getChildrenFromFields();
      return new NestedWriters.MapWriter(
          v, forVector(kv.get(0), m.key(), mapping), forVector(kv.get(1), m.value(), mapping));
    }
    if (type instanceof UdtType u) {
      StructVector v = (StructVector) vector;
      List<FieldVector> children = v.getChildrenFromFields();
      ValueWriter[] fields = new ValueWriter[u.fields().size()];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = forVector(children.get(i), u.fields().get(i).type(), mapping);
      }
      return new NestedWriters.StructWriter(v, fields);
    }
    if (type instanceof TupleType t) {
      StructVector v = (StructVector) vector;
      List<FieldVector> children = v.getChildrenFromFields();
      ValueWriter[] fields = new ValueWriter[t.components().size()];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = forVector(children.get(i), t.components().get(i), mapping);
      }
      return new NestedWriters.StructWriter(v, fields);
    }
    if (type instanceof VectorType vt) {
      FixedSizeListVector v = (FixedSizeListVector) vector;
      return new NestedWriters.FixedListWriter(
          v, forVector(v.getDataVector(), vt.element(), mapping));
    }
    throw new IllegalArgumentException("no Arrow writer for " + type);
  }

  private static ValueWriter forNativeObjects(
      FieldVector vector, NativeType n, ArrowMapping mapping) {
    switch (n) {
      case DURATION:
        return new ScalarWriters.Interval((IntervalMonthDayNanoVector) vector);
      case DECIMAL:
        return mapping.decimalScale() < 0
            ? new ScalarWriters.Utf8((VarCharVector) vector)
            : new ScalarWriters.Decimal((DecimalVector) vector, mapping.decimalRounding());
      case VARINT:
        return mapping.varintAsBinary()
            ? new ScalarWriters.Binary((VarBinaryVector) vector)
            : new ScalarWriters.Utf8((VarCharVector) vector);
      case INET:
        return mapping.inetAsText()
            ? new ScalarWriters.Utf8((VarCharVector) vector)
            : new ScalarWriters.Binary((VarBinaryVector) vector);
      default:
        return new ScalarWriters.Utf8((VarCharVector) vector); // its value's toString()
    }
  }
}
