package io.cqlrows.arrow;

import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.CustomType;
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
 * same CQL type: the dispatch on the type happens here, once per schema, never per value.
 */
final class Writers {
  private Writers() {}

  static ValueWriter forVector(FieldVector vector, CqlType type, ArrowMapping mapping) {
    if (type instanceof NativeType n) {
      return forNative(vector, n, mapping);
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
      if (vt.element() instanceof NativeType e) {
        switch (e) {
          case FLOAT:
            return new PrimitiveVectorWriter.Floats(v);
          case DOUBLE:
            return new PrimitiveVectorWriter.Doubles(v);
          case INT:
            return new PrimitiveVectorWriter.Ints(v);
          case BIGINT:
            return new PrimitiveVectorWriter.Longs(v);
          default:
            break;
        }
      }
      return new NestedWriters.FixedListWriter(
          v, forVector(v.getDataVector(), vt.element(), mapping));
    }
    if (type instanceof CustomType) {
      return new ScalarWriters.Binary((VarBinaryVector) vector);
    }
    throw new IllegalArgumentException("no Arrow writer for " + type);
  }

  private static ValueWriter forNative(FieldVector vector, NativeType n, ArrowMapping mapping) {
    return switch (n) {
      case BOOLEAN -> new ScalarWriters.Bool((BitVector) vector);
      case TINYINT -> new ScalarWriters.Int8((TinyIntVector) vector);
      case SMALLINT -> new ScalarWriters.Int16((SmallIntVector) vector);
      case INT -> new ScalarWriters.Int32((org.apache.arrow.vector.IntVector) vector);
      case BIGINT, COUNTER -> new ScalarWriters.Int64((BigIntVector) vector);
      case FLOAT -> new ScalarWriters.Float32((Float4Vector) vector);
      case DOUBLE -> new ScalarWriters.Float64((Float8Vector) vector);
      case TEXT, ASCII -> new ScalarWriters.Utf8((VarCharVector) vector);
      case BLOB, INET -> new ScalarWriters.Binary((VarBinaryVector) vector);
      case TIMESTAMP -> new ScalarWriters.Timestamp((TimeStampMilliTZVector) vector);
      case DATE -> new ScalarWriters.Date((DateDayVector) vector);
      case TIME -> new ScalarWriters.Time((TimeNanoVector) vector);
      case UUID, TIMEUUID -> new ScalarWriters.Uuid((UuidVector) vector);
      case DURATION -> new ScalarWriters.Interval((IntervalMonthDayNanoVector) vector);
      case DECIMAL ->
          mapping.decimalScale() < 0
              ? new ScalarWriters.Utf8((VarCharVector) vector)
              : new ScalarWriters.Decimal((DecimalVector) vector, mapping.decimalRounding());
      case VARINT ->
          mapping.varintAsBinary()
              ? new ScalarWriters.Binary((VarBinaryVector) vector)
              : new ScalarWriters.Utf8((VarCharVector) vector);
    };
  }
}
