void main(List<String> args) {
  final label = 'sum';
  print('$label=${1 + 3}');
}
