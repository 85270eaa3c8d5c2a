// A minimal TFLM firmware: the registrations listed in the case's table (g_ops) run on one
// MicroMutableOpResolver, the model (g_model, a const array in flash) is allocated and invoked once.
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/system_setup.h"

extern "C" const unsigned char g_model[];
extern "C" void (*const g_ops[])(void*);
extern "C" const int g_op_count;
alignas(16) static uint8_t tensor_arena[96 * 1024];
static tflite::MicroMutableOpResolver<32> resolver;

int main() {
  tflite::InitializeTarget();
  for (int i = 0; i < g_op_count; ++i) g_ops[i](&resolver);
  tflite::MicroInterpreter interpreter(tflite::GetModel(g_model), resolver, tensor_arena, sizeof tensor_arena);
  if (interpreter.AllocateTensors() != kTfLiteOk) return 1;
  interpreter.input(0)->data.raw[0] = 0;
  if (interpreter.Invoke() != kTfLiteOk) return 2;
  return interpreter.output(0)->data.raw[0];
}
