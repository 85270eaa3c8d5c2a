/* The model's bytes as a const array in flash (what xxd -i and a const array give), 16-byte aligned. */
  .section .rodata.g_model,"a"
  .balign 16
  .global g_model
g_model:
  .incbin MODEL_FILE
