package io.switchboard.proto;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoFileDescriptorSupplier;
import io.grpc.protobuf.ProtoUtils;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.AckResponse;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.PublishResponse;
import io.switchboard.proto.v1.QueuesProto;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.ReceiveResponse;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.proto.v1.SendResponse;

/**
 * The method descriptors of the service {@code switchboard.v1.Queues} ({@code
 * switchboard/v1/queues.proto}): what protoc-gen-grpc-java would generate as {@code QueuesGrpc},
 * written here because that generator's executable is not one this build can fetch (docs/
 * decisions.md, "gRPC on its own port"). QueuesServiceTest checks every method against the service
 * in the .proto: name, request and response types, and which side streams.
 */
public final class QueuesService {

  /** The service's full name, {@code switchboard.v1.Queues}. */
  public static final String NAME = "switchboard.v1.Queues";

  public static final MethodDescriptor<PublishRequest, PublishResponse> PUBLISH =
      method(
          "Publish",
          MethodType.BIDI_STREAMING,
          PublishRequest.getDefaultInstance(),
          PublishResponse.getDefaultInstance());

  public static final MethodDescriptor<ConsumeRequest, ConsumeResponse> CONSUME =
      method(
          "Consume",
          MethodType.BIDI_STREAMING,
          ConsumeRequest.getDefaultInstance(),
          ConsumeResponse.getDefaultInstance());

  public static final MethodDescriptor<SendRequest, SendResponse> SEND =
      method(
          "Send",
          MethodType.UNARY,
          SendRequest.getDefaultInstance(),
          SendResponse.getDefaultInstance());

  public static final MethodDescriptor<ReceiveRequest, ReceiveResponse> RECEIVE =
      method(
          "Receive",
          MethodType.UNARY,
          ReceiveRequest.getDefaultInstance(),
          ReceiveResponse.getDefaultInstance());

  public static final MethodDescriptor<AckRequest, AckResponse> ACK =
      method(
          "Ack",
          MethodType.UNARY,
          AckRequest.getDefaultInstance(),
          AckResponse.getDefaultInstance());

  /** The service with its methods and its .proto file (for server reflection). */
  public static final ServiceDescriptor SERVICE =
      ServiceDescriptor.newBuilder(NAME)
          .setSchemaDescriptor(new Schema())
          .addMethod(PUBLISH)
          .addMethod(CONSUME)
          .addMethod(SEND)
          .addMethod(RECEIVE)
          .addMethod(ACK)
          .build();

  private QueuesService() {}

  private static <Q extends Message, A extends Message> MethodDescriptor<Q, A> method(
      String name, MethodType type, Q request, A response) {
    return MethodDescriptor.<Q, A>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(NAME, name))
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(response))
        .build();
  }

  private static final class Schema implements ProtoFileDescriptorSupplier {
    @Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return QueuesProto.getDescriptor();
    }
  }
}
