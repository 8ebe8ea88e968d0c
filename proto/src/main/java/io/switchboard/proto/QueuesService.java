package io.switchboard.proto;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoFileDescriptorSupplier;
import io.grpc.protobuf.ProtoUtils;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.AckResponse;
import io.switchboard.proto.v1.BrowseRequest;
import io.switchboard.proto.v1.BrowseResponse;
import io.switchboard.proto.v1.CancelRedriveRequest;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.CreateQueueRequest;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.proto.v1.Done;
import io.switchboard.proto.v1.ExtendRequest;
import io.switchboard.proto.v1.LeaseRef;
import io.switchboard.proto.v1.ListQueuesRequest;
import io.switchboard.proto.v1.ListQueuesResponse;
import io.switchboard.proto.v1.ListRedrivesResponse;
import io.switchboard.proto.v1.MessageRef;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.PublishResponse;
import io.switchboard.proto.v1.PurgeResponse;
import io.switchboard.proto.v1.QueueRef;
import io.switchboard.proto.v1.QueueResponse;
import io.switchboard.proto.v1.QueuesProto;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.ReceiveResponse;
import io.switchboard.proto.v1.RedriveTaskResponse;
import io.switchboard.proto.v1.ReleaseRequest;
import io.switchboard.proto.v1.SendBatchRequest;
import io.switchboard.proto.v1.SendBatchResponse;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.proto.v1.SendResponse;
import io.switchboard.proto.v1.StartRedriveRequest;
import io.switchboard.proto.v1.StatsResponse;
import io.switchboard.proto.v1.UpdateMessageRequest;
import io.switchboard.proto.v1.UpdateQueueRequest;

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

  public static final MethodDescriptor<CreateQueueRequest, QueueResponse> CREATE_QUEUE =
      unary(
          "CreateQueue",
          CreateQueueRequest.getDefaultInstance(),
          QueueResponse.getDefaultInstance());

  public static final MethodDescriptor<QueueRef, QueueResponse> GET_QUEUE =
      unary("GetQueue", QueueRef.getDefaultInstance(), QueueResponse.getDefaultInstance());

  public static final MethodDescriptor<UpdateQueueRequest, QueueResponse> UPDATE_QUEUE =
      unary(
          "UpdateQueue",
          UpdateQueueRequest.getDefaultInstance(),
          QueueResponse.getDefaultInstance());

  public static final MethodDescriptor<QueueRef, Done> DELETE_QUEUE =
      unary("DeleteQueue", QueueRef.getDefaultInstance(), Done.getDefaultInstance());

  public static final MethodDescriptor<ListQueuesRequest, ListQueuesResponse> LIST_QUEUES =
      unary(
          "ListQueues",
          ListQueuesRequest.getDefaultInstance(),
          ListQueuesResponse.getDefaultInstance());

  public static final MethodDescriptor<QueueRef, StatsResponse> STATS =
      unary("Stats", QueueRef.getDefaultInstance(), StatsResponse.getDefaultInstance());

  public static final MethodDescriptor<QueueRef, PurgeResponse> PURGE =
      unary("Purge", QueueRef.getDefaultInstance(), PurgeResponse.getDefaultInstance());

  public static final MethodDescriptor<SendBatchRequest, SendBatchResponse> SEND_BATCH =
      unary(
          "SendBatch",
          SendBatchRequest.getDefaultInstance(),
          SendBatchResponse.getDefaultInstance());

  public static final MethodDescriptor<BrowseRequest, BrowseResponse> BROWSE =
      unary("Browse", BrowseRequest.getDefaultInstance(), BrowseResponse.getDefaultInstance());

  public static final MethodDescriptor<ReleaseRequest, Done> RELEASE =
      unary("Release", ReleaseRequest.getDefaultInstance(), Done.getDefaultInstance());

  public static final MethodDescriptor<ExtendRequest, Delivery> EXTEND =
      unary("Extend", ExtendRequest.getDefaultInstance(), Delivery.getDefaultInstance());

  public static final MethodDescriptor<LeaseRef, Done> FAIL =
      unary("Fail", LeaseRef.getDefaultInstance(), Done.getDefaultInstance());

  public static final MethodDescriptor<LeaseRef, Done> DEAD_LETTER =
      unary("DeadLetter", LeaseRef.getDefaultInstance(), Done.getDefaultInstance());

  public static final MethodDescriptor<MessageRef, Delivery> GET_MESSAGE =
      unary("GetMessage", MessageRef.getDefaultInstance(), Delivery.getDefaultInstance());

  public static final MethodDescriptor<UpdateMessageRequest, Delivery> UPDATE_MESSAGE =
      unary(
          "UpdateMessage",
          UpdateMessageRequest.getDefaultInstance(),
          Delivery.getDefaultInstance());

  public static final MethodDescriptor<MessageRef, Done> REMOVE_MESSAGE =
      unary("RemoveMessage", MessageRef.getDefaultInstance(), Done.getDefaultInstance());

  public static final MethodDescriptor<MessageRef, Delivery> TOUCH =
      unary("Touch", MessageRef.getDefaultInstance(), Delivery.getDefaultInstance());

  public static final MethodDescriptor<MessageRef, Done> DEAD_LETTER_MESSAGE =
      unary("DeadLetterMessage", MessageRef.getDefaultInstance(), Done.getDefaultInstance());

  public static final MethodDescriptor<MessageRef, Delivery> RESTORE =
      unary("Restore", MessageRef.getDefaultInstance(), Delivery.getDefaultInstance());

  public static final MethodDescriptor<StartRedriveRequest, RedriveTaskResponse> START_REDRIVE =
      unary(
          "StartRedrive",
          StartRedriveRequest.getDefaultInstance(),
          RedriveTaskResponse.getDefaultInstance());

  public static final MethodDescriptor<QueueRef, ListRedrivesResponse> LIST_REDRIVES =
      unary(
          "ListRedrives", QueueRef.getDefaultInstance(), ListRedrivesResponse.getDefaultInstance());

  public static final MethodDescriptor<CancelRedriveRequest, RedriveTaskResponse> CANCEL_REDRIVE =
      unary(
          "CancelRedrive",
          CancelRedriveRequest.getDefaultInstance(),
          RedriveTaskResponse.getDefaultInstance());

  /** The service with its methods and its .proto file (for server reflection). */
  public static final ServiceDescriptor SERVICE =
      ServiceDescriptor.newBuilder(NAME)
          .setSchemaDescriptor(new Schema())
          .addMethod(PUBLISH)
          .addMethod(CONSUME)
          .addMethod(SEND)
          .addMethod(RECEIVE)
          .addMethod(ACK)
          .addMethod(CREATE_QUEUE)
          .addMethod(GET_QUEUE)
          .addMethod(UPDATE_QUEUE)
          .addMethod(DELETE_QUEUE)
          .addMethod(LIST_QUEUES)
          .addMethod(STATS)
          .addMethod(PURGE)
          .addMethod(SEND_BATCH)
          .addMethod(BROWSE)
          .addMethod(RELEASE)
          .addMethod(EXTEND)
          .addMethod(FAIL)
          .addMethod(DEAD_LETTER)
          .addMethod(GET_MESSAGE)
          .addMethod(UPDATE_MESSAGE)
          .addMethod(REMOVE_MESSAGE)
          .addMethod(TOUCH)
          .addMethod(DEAD_LETTER_MESSAGE)
          .addMethod(RESTORE)
          .addMethod(START_REDRIVE)
          .addMethod(LIST_REDRIVES)
          .addMethod(CANCEL_REDRIVE)
          .build();

  private QueuesService() {}

  private static <Q extends Message, A extends Message> MethodDescriptor<Q, A> unary(
      String name, Q request, A response) {
    return method(name, MethodType.UNARY, request, response);
  }

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
