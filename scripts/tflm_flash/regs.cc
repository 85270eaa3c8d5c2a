// One registration function per kernel (each in its own section: --gc-sections keeps only those a case lists).
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
using Resolver = tflite::MicroMutableOpResolver<32>;
extern "C" void reg_add(void* r) { static_cast<Resolver*>(r)->AddAdd(); }
extern "C" void reg_average_pool_2d(void* r) { static_cast<Resolver*>(r)->AddAveragePool2D(); }
extern "C" void reg_concatenation(void* r) { static_cast<Resolver*>(r)->AddConcatenation(); }
extern "C" void reg_conv_2d(void* r) { static_cast<Resolver*>(r)->AddConv2D(); }
extern "C" void reg_depthwise_conv_2d(void* r) { static_cast<Resolver*>(r)->AddDepthwiseConv2D(); }
extern "C" void reg_fully_connected(void* r) { static_cast<Resolver*>(r)->AddFullyConnected(); }
extern "C" void reg_max_pool_2d(void* r) { static_cast<Resolver*>(r)->AddMaxPool2D(); }
extern "C" void reg_mean(void* r) { static_cast<Resolver*>(r)->AddMean(); }
extern "C" void reg_mul(void* r) { static_cast<Resolver*>(r)->AddMul(); }
extern "C" void reg_pad(void* r) { static_cast<Resolver*>(r)->AddPad(); }
extern "C" void reg_quantize(void* r) { static_cast<Resolver*>(r)->AddQuantize(); }
extern "C" void reg_relu(void* r) { static_cast<Resolver*>(r)->AddRelu(); }
extern "C" void reg_relu6(void* r) { static_cast<Resolver*>(r)->AddRelu6(); }
extern "C" void reg_reshape(void* r) { static_cast<Resolver*>(r)->AddReshape(); }
extern "C" void reg_softmax(void* r) { static_cast<Resolver*>(r)->AddSoftmax(); }
extern "C" void reg_split(void* r) { static_cast<Resolver*>(r)->AddSplit(); }
extern "C" void reg_svdf(void* r) { static_cast<Resolver*>(r)->AddSvdf(); }
extern "C" void reg_unidirectional_sequence_lstm(void* r) { static_cast<Resolver*>(r)->AddUnidirectionalSequenceLSTM(); }
