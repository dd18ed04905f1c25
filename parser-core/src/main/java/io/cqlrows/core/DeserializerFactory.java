package io.cqlrows.core;

import io.cqlrows.core.CollectionDeserializers.ListDeserializer;
import io.cqlrows.core.CollectionDeserializers.MapDeserializer;
import io.cqlrows.core.CollectionDeserializers.TupleDeserializer;
import io.cqlrows.core.CollectionDeserializers.UdtDeserializer;
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

/**
 * Builds the deserializer tree for each column, once per set of columns: where types are
 * dispatched. The row loop itself never looks at a type: {@link RowsParser} decodes cells of the
 * fixed-width native types, text and blobs by a switch on their {@link InlineCells} kind (chosen
 * once per result from these deserializers), and makes one virtual call to the column's
 * deserializer for a cell of any other type (collections, UDTs, tuples, vectors, decimal, varint,
 * inet, duration, ascii).
 */
final class DeserializerFactory {
  private DeserializerFactory() {}

  static ValueDeserializer[] forColumns(List<ColumnSpec> specs, ParseLimits limits) {
    ValueDeserializer[] result = new ValueDeserializer[specs.size()];
    for (int i = 0; i < result.length; i++) {
      result[i] = forType(specs.get(i).type(), limits);
    }
    return result;
  }

  static ValueDeserializer forType(CqlType type, ParseLimits limits) {
    if (type instanceof NativeType n) {
      return ScalarDeserializers.forType(n, limits.replaceMalformedText());
    } else if (type instanceof ListType l) {
      return new ListDeserializer(l, forType(l.element(), limits), limits);
    } else if (type instanceof SetType s) {
      return new ListDeserializer(s, forType(s.element(), limits), limits);
    } else if (type instanceof MapType m) {
      return new MapDeserializer(m, forType(m.key(), limits), forType(m.value(), limits), limits);
    } else if (type instanceof UdtType u) {
      ValueDeserializer[] fields = new ValueDeserializer[u.fields().size()];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = forType(u.fields().get(i).type(), limits);
      }
      return new UdtDeserializer(u, fields);
    } else if (type instanceof TupleType t) {
      ValueDeserializer[] components = new ValueDeserializer[t.components().size()];
      for (int i = 0; i < components.length; i++) {
        components[i] = forType(t.components().get(i), limits);
      }
      return new TupleDeserializer(t, components);
    } else if (type instanceof VectorType v) {
      return forVector(v, limits);
    } else if (type instanceof CustomType c) {
      return new VariableWidthDeserializers.BlobDeserializer(c);
    }
    throw new AssertionError(type);
  }

  private static ValueDeserializer forVector(VectorType v, ParseLimits limits) {
    switch (CellKind.of(v)) {
      case FLOAT_VECTOR:
        return new VectorDeserializers.FloatVectorDeserializer(v);
      case DOUBLE_VECTOR:
        return new VectorDeserializers.DoubleVectorDeserializer(v);
      case INT_VECTOR:
        return new VectorDeserializers.IntVectorDeserializer(v);
      case LONG_VECTOR:
        return new VectorDeserializers.LongVectorDeserializer(v);
      default:
        break;
    }
    CqlType element = v.element();
    ValueDeserializer e = forType(element, limits);
    if (element.fixedLengthInVector() >= 0) {
      return new VectorDeserializers.StrideVectorDeserializer(v, e);
    }
    return new VectorDeserializers.VintVectorDeserializer(v, e);
  }
}
